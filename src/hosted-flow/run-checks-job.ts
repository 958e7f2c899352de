/** The durable job that runs a submitted session's checks (src/checks/run-checks.job.ts). */
export const RUN_CHECKS_JOB = 'run-checks';
export type RunChecksData = { sessionId: string };
