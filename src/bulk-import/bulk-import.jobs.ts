import type { JobDefinition } from '../jobs/job-definition';
import type { BulkImportData, BulkImportJob } from './bulk-import.job';
import { BULK_IMPORT_JOB } from './bulk-import.service';

export const bulkImportJobs: readonly JobDefinition<{ bulkImport: BulkImportJob }>[] = [
  {
    queue: BULK_IMPORT_JOB,
    sentInTransactions: true, // the transaction that stores an import
    // One import at a time per process: its batches are CPU- and database-bound, more at once only queue.
    worker: ({ bulkImport }) => ({ each: (data: BulkImportData) => bulkImport.run(data), batchSize: 1, localConcurrency: 1 }),
  },
];
