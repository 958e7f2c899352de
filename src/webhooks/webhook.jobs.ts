import type { JobDefinition } from '../jobs/job-definition';
import type { DeliverWebhookJob } from './deliver-webhook.job';
import { DELIVER_WEBHOOK_JOB, type DeliverWebhookData } from './webhook.dispatcher';

export const webhookJobs: readonly JobDefinition<{ webhookDelivery: { job: DeliverWebhookJob; concurrency: number } }>[] = [
  {
    queue: DELIVER_WEBHOOK_JOB,
    sentInTransactions: true, // every transaction that writes outbox rows; its commits wake the workers
    // Attempts are network-bound: several fetch loops, each reading, sending and recording its
    // batch together (a few statements per batch instead of several per attempt).
    worker: ({ webhookDelivery: { job, concurrency } }) => {
      const loops = Math.min(4, concurrency);
      return {
        batch: (batch: { id: string; data: DeliverWebhookData }[]) => job.runBatch(batch.map((j) => j.data)),
        batchSize: Math.max(1, Math.floor(concurrency / loops)),
        localConcurrency: loops,
      };
    },
  },
];
