import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { JobDefinition } from '../jobs/job-definition';
import type { Logger } from '../logger';
import type { Accounts } from '../users/accounts';
import type { EvidenceVault } from '../vault/evidence-vault';
import type { DataRights } from './data-rights';
import type { DataRightsServices } from './data-rights.services';
import { DSR_CALLBACK_JOB, DSR_EXPIRE_UNCONFIRMED_JOB } from './delegated/delegated-request.service';
import { type DsrCallbackData, DsrCallbackJob } from './delegated/dsr-callback.job';
import type { DsrJobService } from './dsr-job.service';
import { DSR_MAIL_JOB, DsrMail, type DsrMailData } from './dsr-mail';
import { AccountExportData } from './export/account-export-data';
import { type BuildExportData, BuildExportJob } from './export/build-export.job';
import { EXPORT_CLEANUP_JOB, EXPORT_JOB } from './export/data-export.service';
import { DatabaseExportSources } from './export/database-export-sources';
import { BIOMETRIC_PURGE_JOB, type BiometricPurgeData, HARD_PURGE_JOB, type HardPurgeData } from './user-erasure.service';

/** The hourly safety net: a hard purge whose own job was lost (e.g. a restored backup) still happens. */
export const PURGE_DUE_JOB = 'dsr-purge-due';

type DataRightsParts = {
  db: DataSource;
  config: Config;
  logger: Logger;
  dsrJobs: DsrJobService;
  accounts: Accounts;
  vault: EvidenceVault;
  /** Exports, the social upstream, delegated requests. */
  dataRights: DataRights;
  /** Erasure and the biometric purge. */
  userRights: DataRightsServices;
};

/** The data-rights queues (docs/data-rights.md, "Jobs"). */
export const dataRightsJobs: readonly JobDefinition<DataRightsParts>[] = [
  {
    queue: EXPORT_JOB,
    sentInTransactions: true, // the request's transaction
    worker: ({ db, logger, dsrJobs, accounts, vault, dataRights }) => {
      const sources = new DatabaseExportSources(db, vault, new AccountExportData(db, accounts.users), dataRights.social);
      const build = new BuildExportJob(dsrJobs, dataRights.exports, sources, dataRights.exportKey, logger);
      return { each: (data: BuildExportData) => build.run(data), batchSize: 1, localConcurrency: 1 };
    },
  },
  {
    queue: DSR_CALLBACK_JOB,
    sentInTransactions: true, // the transaction that settles a job
    worker: ({ config, logger, dsrJobs, accounts, dataRights }) => {
      const callback = new DsrCallbackJob(dsrJobs, dataRights.exports, accounts.users, logger, { allowPrivateTargets: config.webhooks.allowPrivateTargets, timeoutMs: config.webhooks.timeoutMs });
      return { each: (data: DsrCallbackData) => callback.run(data), batchSize: 1, localConcurrency: 2 };
    },
  },
  {
    queue: DSR_EXPIRE_UNCONFIRMED_JOB,
    worker: ({ dataRights }) => ({ each: async () => void (await dataRights.delegated.expireUnconfirmed()) }),
    cron: () => '*/10 * * * *',
  },
  {
    queue: EXPORT_CLEANUP_JOB,
    worker: ({ dataRights }) => ({ each: async () => void (await dataRights.exports.removeExpired()) }),
    cron: () => '23 * * * *',
  },
  {
    queue: DSR_MAIL_JOB,
    sentInTransactions: true,
    worker: ({ db, config, accounts }) => {
      const mail = new DsrMail(db, accounts.mail, accounts.box, config.publicBaseUrl);
      return { each: (data: DsrMailData) => mail.run(data) };
    },
  },
  {
    queue: BIOMETRIC_PURGE_JOB,
    sentInTransactions: true,
    // The 60-second promise. When many users delete at once, a worker takes up to 50 purges and does
    // them together (one transaction, one take of each audit chain's lock); one purge that fails
    // alone must not hold back the others, so a failed batch is done again one purge at a time.
    worker: ({ logger, userRights: { biometrics } }) => ({
      batch: async (batch: { id: string; data: BiometricPurgeData }[]) => {
        const items = batch.map((j) => j.data);
        try {
          await biometrics.runMany(items);
        } catch (err) {
          if (items.length === 1) throw err;
          logger.warn({ err, jobIds: batch.map((j) => j.id) }, 'biometric purge batch failed; purging each user alone');
          const failed = (await Promise.allSettled(items.map((d) => biometrics.run(d)))).find((r) => r.status === 'rejected');
          if (failed) throw failed.reason;
        }
      },
      batchSize: 50,
      localConcurrency: 2,
    }),
  },
  {
    queue: HARD_PURGE_JOB,
    sentInTransactions: true,
    worker: ({ userRights: { erasure } }) => ({ each: async (d: HardPurgeData) => void (await erasure.hardPurge(d.userId, d.asOf ? new Date(d.asOf) : undefined)) }),
  },
  {
    queue: PURGE_DUE_JOB,
    worker: ({ userRights: { erasure } }) => ({ each: async () => void (await erasure.purgeDue()) }),
    cron: () => '17 * * * *',
  },
];
