import type { DataSource } from 'typeorm';
import type { JobQueue } from '../jobs/job-queue';
import { SessionDataRightsQueries } from '../sessions/session-data-rights.queries';
import { RUN_CHECKS_JOB, RUN_CHECKS_RETRY, type RunChecksData } from '../sessions/session-queues';
import type { DsrJob, DsrJobService } from './dsr-job.service';
import type { UserAccessGate } from './user-access.gate';
import { assertNotDeleted, latestJob, lockUser } from './user-state';
import { systemClock, type Clock } from '../clock';

/** How long a paused check waits before it looks again; lifting the restriction resumes them at once. */
export const PAUSED_CHECK_RETRY_SECONDS = 30;

/**
 * Restriction of processing (docs/data-rights.md, "Restriction"): `POST /v1/me/restrict` sets it
 * and `DELETE /v1/me/restrict` lifts it, each a `restriction` DSR job completed at once. While it
 * holds, the UserAccessGate answers tenants' reads of the user's sessions with `user_restricted`,
 * no session can be bound to the user, and running checks wait (withRestrictionPause); storage and
 * data-rights requests go on. Setting it twice, or lifting it when none holds, changes nothing and
 * answers with the request that made the state.
 */
export class UserRestrictionService {
  constructor(
    private readonly db: DataSource,
    private readonly dsr: DsrJobService,
    private readonly jobs: Pick<JobQueue, 'send'>,
    private readonly now: Clock = systemClock,
  ) {}

  restrict(userId: string): Promise<DsrJob> {
    return this.change(userId, 'restrict');
  }

  async lift(userId: string): Promise<DsrJob> {
    return this.change(userId, 'lift');
  }

  private async change(userId: string, action: 'restrict' | 'lift'): Promise<DsrJob> {
    return this.db.transaction(async (m) => {
      const user = await lockUser(m, userId);
      assertNotDeleted(user);
      const already = action === 'restrict' ? user.state === 'restricted' : user.state !== 'restricted';
      if (already) {
        const last = await latestJob(m, userId, 'restriction', { action });
        const job = last && (await this.dsr.get(last, m));
        if (job) return job;
      }
      const job = await this.dsr.create({ userId, kind: 'restriction', details: { action }, within: m });
      await this.dsr.start(job.id, m);
      if (!already) {
        const now = this.now();
        await m.query(`UPDATE users SET state = $2, restricted_at = $3, updated_at = now() WHERE id = $1`, [userId, action === 'restrict' ? 'restricted' : 'active', action === 'restrict' ? now : null]);
        if (action === 'lift') {
          // Paused checks resume now rather than at their next look.
          const waiting = await SessionDataRightsQueries.idsOfUserInStatus(m, userId, ['processing']);
          for (const sessionId of waiting) await this.jobs.send<RunChecksData>(RUN_CHECKS_JOB, { sessionId }, { within: m, retry: RUN_CHECKS_RETRY });
        }
      }
      return this.dsr.complete(job.id, { state: action === 'restrict' ? 'restricted' : 'active' }, m);
    });
  }
}

/**
 * The check pipeline's job, paused for a restricted user: the job looks again later instead of
 * processing (and is started again at once when the restriction is lifted).
 */
export function withRestrictionPause<T extends { run(data: RunChecksData): Promise<void> }>(
  job: T,
  db: DataSource,
  gate: UserAccessGate,
  jobs: Pick<JobQueue, 'send'>,
): { run(data: RunChecksData): Promise<void> } {
  return {
    run: async (data) => {
      const userId = await SessionDataRightsQueries.userOf(db, data.sessionId);
      if (userId && (await gate.stateOf(userId)) === 'restricted') {
        await jobs.send<RunChecksData>(RUN_CHECKS_JOB, data, { retry: RUN_CHECKS_RETRY, startAfter: new Date(Date.now() + PAUSED_CHECK_RETRY_SECONDS * 1000) });
        return;
      }
      await job.run(data);
    },
  };
}
