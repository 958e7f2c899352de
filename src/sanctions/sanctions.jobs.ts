import type { JobDefinition } from '../jobs/job-definition';
import type { JobQueue } from '../jobs/job-queue';
import { REFRESH_SANCTIONS_JOB, type RefreshSanctionsData, type RefreshSanctionsJob } from './refresh-sanctions.job';

type SanctionsParts = { jobs: Pick<JobQueue, 'send'>; sanctionsRefresh: RefreshSanctionsJob; sanctionsRefreshCron: string };

export const sanctionsJobs: readonly JobDefinition<SanctionsParts>[] = [
  {
    queue: REFRESH_SANCTIONS_JOB,
    worker: ({ jobs, sanctionsRefresh }) => ({ each: (data: RefreshSanctionsData) => sanctionsRefresh.handle(jobs, data) }),
    // Every download switched off: no scheduled fetch (the CLI still loads files and can enqueue a run).
    cron: ({ sanctionsRefresh, sanctionsRefreshCron }) => (sanctionsRefresh.configuredLists.length ? sanctionsRefreshCron : null),
    // Lists missing or older than 24 h are fetched now rather than at the next daily run.
    started: async ({ jobs, sanctionsRefresh }) => {
      if (sanctionsRefresh.configuredLists.length) await sanctionsRefresh.enqueueStartUpCatchUp(jobs);
    },
  },
];
