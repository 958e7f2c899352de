import type { RetryPolicy } from '../jobs/retry-policy';

// The queues a session's own work goes through, named where every sender (the sessions, the hosted flow,
// the chip, a lifted restriction) can reach them. Their workers are the sessions' and the verification's
// job definitions (src/sessions/session.jobs.ts, src/verification/verification.jobs.ts).

/** A test-mode session's next scripted step (TEST_MODE_STEPS). */
export const TEST_MODE_JOB = 'test-mode-advance';

/** A submitted session's checks (src/verification/run-checks.job.ts). */
export const RUN_CHECKS_JOB = 'run-checks';
export type RunChecksData = { sessionId: string };
/** A run that threw (an engine or the database down) tries again after 5-10 s, then longer, for about 4 minutes. */
export const RUN_CHECKS_RETRY: RetryPolicy = { limit: 5, delaySeconds: 5, backoff: true, maxDelaySeconds: 120 };

/** Sessions past their expiry, moved to `expired` each minute. */
export const EXPIRE_SESSIONS_JOB = 'expire-sessions';
