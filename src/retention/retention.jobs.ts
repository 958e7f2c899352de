import type { JobDefinition } from '../jobs/job-definition';
import { RETENTION_NIGHTLY_CRON, RETENTION_NIGHTLY_JOB, RETENTION_PURGE_CRON, RETENTION_PURGE_JOB, type RetentionRunService } from './retention-run.service';

/** docs/retention-and-audit.md: the nightly pass (reclassify, purge) and the hourly purge. */
export const retentionJobs: readonly JobDefinition<{ retentionRuns: RetentionRunService }>[] = [
  {
    queue: RETENTION_NIGHTLY_JOB,
    worker: ({ retentionRuns }) => ({ each: async () => void (await retentionRuns.nightly()) }),
    cron: () => RETENTION_NIGHTLY_CRON,
  },
  {
    queue: RETENTION_PURGE_JOB,
    worker: ({ retentionRuns }) => ({ each: async () => void (await retentionRuns.hourly()) }),
    cron: () => RETENTION_PURGE_CRON,
  },
];
