import type { JobDefinition } from '../jobs/job-definition';
import { type BlobReaper, type DeleteBlobsData, VAULT_DELETE_BLOBS_JOB, VAULT_SWEEP_CRON, VAULT_SWEEP_JOB } from './blob-reaper';

/**
 * docs/operations.md, "Evidence vault": blobs of committed purges, and the hourly orphan sweep. With
 * VAULT_STORE=postgres there is no blob store, so no reaper and no worker.
 */
export const vaultJobs: readonly JobDefinition<{ blobReaper: BlobReaper | null }>[] = [
  {
    queue: VAULT_DELETE_BLOBS_JOB,
    sentInTransactions: true, // purge transactions
    worker: ({ blobReaper }) => (blobReaper ? { each: async (data: DeleteBlobsData) => void (await blobReaper.deleteUnreferenced(data.keys)), batchSize: 4 } : null),
  },
  {
    queue: VAULT_SWEEP_JOB,
    worker: ({ blobReaper }) => (blobReaper ? { each: async () => void (await blobReaper.sweep()) } : null),
    cron: ({ blobReaper }) => (blobReaper ? VAULT_SWEEP_CRON : null),
  },
];
