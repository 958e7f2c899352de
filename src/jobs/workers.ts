import type { DataSource } from 'typeorm';
import type { SessionService } from '../sessions/session.service';
import { TEST_MODE_JOB } from '../sessions/session.service';
import { JobQueue } from './job-queue';
import { TestModeAdvanceData, TestModeAdvanceJob } from './test-mode-advance.job';
import type { DeliverWebhookJob } from '../webhooks/deliver-webhook.job';
import { DELIVER_WEBHOOK_JOB, DeliverWebhookData } from '../webhooks/webhook.dispatcher';

export const EXPIRE_SESSIONS_JOB = 'expire-sessions';

/** Registers every background worker on this process. */
export async function startWorkers(
  jobs: JobQueue,
  deps: { db: DataSource; sessions: SessionService; webhookDelivery?: { job: DeliverWebhookJob; concurrency: number } },
): Promise<void> {
  const testMode = new TestModeAdvanceJob(deps.db, deps.sessions);
  await jobs.work<TestModeAdvanceData>(TEST_MODE_JOB, (data) => testMode.run(data), { batchSize: 5, localConcurrency: 2 });
  await jobs.work(EXPIRE_SESSIONS_JOB, async () => {
    while ((await deps.sessions.expireDue()) > 0) {
      /* keep going until no session is overdue */
    }
  });
  await jobs.schedule(EXPIRE_SESSIONS_JOB, '* * * * *');
  if (deps.webhookDelivery) {
    // Attempts are network-bound: several fetch loops, each running its batch concurrently.
    const { job, concurrency } = deps.webhookDelivery;
    const loops = Math.min(4, concurrency);
    await jobs.work<DeliverWebhookData>(DELIVER_WEBHOOK_JOB, (data) => job.run(data), {
      batchSize: Math.max(1, Math.floor(concurrency / loops)),
      localConcurrency: loops,
      parallel: true,
    });
  }
}
