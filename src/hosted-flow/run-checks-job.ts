import type { RetryPolicy } from '../jobs/retry-policy';

/** The durable job that runs a submitted session's checks (src/verification/run-checks.job.ts). */
export const RUN_CHECKS_JOB = 'run-checks';
export type RunChecksData = { sessionId: string };
/** A run that threw (an engine or the database down) tries again after 5-10 s, then longer, for about 4 minutes. */
export const RUN_CHECKS_RETRY: RetryPolicy = { limit: 5, delaySeconds: 5, backoff: true, maxDelaySeconds: 120 };
