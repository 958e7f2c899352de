import type { DataSource } from 'typeorm';
import type { SessionService } from '../sessions/session.service';
import { TEST_MODE_JOB } from '../sessions/session.service';
import { JobQueue } from './job-queue';
import { TestModeAdvanceData, TestModeAdvanceJob } from './test-mode-advance.job';

export const EXPIRE_SESSIONS_JOB = 'expire-sessions';

/** Registers every background worker on this process. */
export async function startWorkers(jobs: JobQueue, deps: { db: DataSource; sessions: SessionService }): Promise<void> {
  const testMode = new TestModeAdvanceJob(deps.db, deps.sessions);
  await jobs.work<TestModeAdvanceData>(TEST_MODE_JOB, (data) => testMode.run(data), { batchSize: 5, localConcurrency: 2 });
  await jobs.work(EXPIRE_SESSIONS_JOB, async () => {
    while ((await deps.sessions.expireDue()) > 0) {
      /* keep going until no session is overdue */
    }
  });
  await jobs.schedule(EXPIRE_SESSIONS_JOB, '* * * * *');
}
