import type { DataSource } from 'typeorm';
import type { JobQueue } from '../jobs/job-queue';
import { HARD_PURGE_JOB, HARD_PURGE_RETRY, HardPurgeData } from './user-erasure.service';

/**
 * The operator's `dsr purge-due --as-of <date>`: queues the hard purge of every soft-deleted user
 * whose `purge_after` is at or before `asOf`, each run as of that date by a worker (docs/data-rights.md).
 */
export async function enqueuePurgesDue(db: DataSource, jobs: Pick<JobQueue, 'send'>, asOf: Date): Promise<{ as_of: string; enqueued: string[] }> {
  if (Number.isNaN(asOf.getTime())) throw new Error('--as-of must be an ISO 8601 date');
  const due: { id: string }[] = await db.query(`SELECT id FROM users WHERE state = 'soft_deleted' AND purge_after <= $1 ORDER BY purge_after`, [asOf]);
  for (const { id } of due) await jobs.send<HardPurgeData>(HARD_PURGE_JOB, { userId: id, asOf: asOf.toISOString() }, { retry: HARD_PURGE_RETRY });
  return { as_of: asOf.toISOString(), enqueued: due.map((d) => d.id) };
}
