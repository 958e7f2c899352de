import type { DataSource } from 'typeorm';
import type { JobDefinition } from '../jobs/job-definition';
import { dropOldMail, MAIL_SWEEP_CRON, MAIL_SWEEP_JOB } from './mail-outbox';

/** Mail is kept for delivery and a short look back, not for ever (docs/accounts-and-oidc.md, "Mail"). */
export const mailJobs: readonly JobDefinition<{ db: DataSource; mailSweepCron?: string }>[] = [
  {
    queue: MAIL_SWEEP_JOB,
    worker: ({ db }) => ({ each: async () => void (await dropOldMail(db)) }),
    cron: ({ mailSweepCron }) => mailSweepCron ?? MAIL_SWEEP_CRON,
  },
];
