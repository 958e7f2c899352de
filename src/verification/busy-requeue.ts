import type { JobQueue } from '../jobs/job-queue';
import type { Logger } from '../logger';
import { RUN_CHECKS_JOB, RUN_CHECKS_RETRY, type RunChecksData } from '../sessions/session-queues';
import { RegistryBusyError } from '../registries/registry-rate-limiter';
import { CheckEnginesBusyError } from '../checks/check-worker.pool';

/** How long a run waits for the check engines when their queue is full (they do not say when they will have room). */
export const ENGINES_BUSY_WAIT_MS = 15_000;

/** When the run that met `err` should start again, or null when `err` is not a "busy, come back later". */
export function busyWaitOf(err: unknown): number | null {
  if (err instanceof RegistryBusyError) return Math.max(1_000, err.retryAfterMs);
  if (err instanceof CheckEnginesBusyError) return ENGINES_BUSY_WAIT_MS;
  return null;
}

/**
 * A session whose checks meet a spent registry budget or a full engine queue waits in the job queue
 * (issue #26: "checks wait in the job queue; they never fail and never go over"): the run ends and a
 * new run is queued for when there is room, without spending one of the run's retries (those are for
 * failures). A session may wait like this for as long as the backlog lasts; nothing is decided meanwhile.
 */
export function withBusyRequeue<T extends { run(data: RunChecksData): Promise<void> }>(job: T, jobs: Pick<JobQueue, 'send'>, logger: Logger): { run(data: RunChecksData): Promise<void> } {
  return {
    run: async (data) => {
      try {
        await job.run(data);
      } catch (err) {
        const waitMs = busyWaitOf(err);
        if (waitMs === null) throw err;
        const startAfter = new Date(Date.now() + waitMs);
        // No singleton key: the run that is ending still holds `checks:<id>` until this returns (a later run finds the session decided and stops).
        await jobs.send<RunChecksData>(RUN_CHECKS_JOB, data, { retry: RUN_CHECKS_RETRY, startAfter });
        logger.info({ sessionId: data.sessionId, waitMs, reason: (err as Error).message }, 'checks wait for room');
      }
    },
  };
}
