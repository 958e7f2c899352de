import type { JobQueue } from '../jobs/job-queue';
import type { Logger } from '../logger';
import type { BiometricPurgeService } from './biometric-purge.service';
import { DSR_MAIL_JOB, type DsrMail, type DsrMailData } from './dsr-mail';
import { BIOMETRIC_PURGE_JOB, BiometricPurgeData, HARD_PURGE_JOB, HardPurgeData, UserErasureService } from './user-erasure.service';

/** The hourly safety net: a hard purge whose own job was lost (e.g. a restored backup) still happens. */
export const PURGE_DUE_JOB = 'dsr-purge-due';

/** Queues sent to inside transactions: created (and told to notify) before any request sends to them. */
export async function ensureDataRightsQueues(jobs: JobQueue): Promise<void> {
  await jobs.ensureQueue(BIOMETRIC_PURGE_JOB, { notify: true });
  await jobs.ensureQueue(HARD_PURGE_JOB, { notify: true });
  await jobs.ensureQueue(DSR_MAIL_JOB, { notify: true });
}

/** The data-rights workers (docs/data-rights.md, "Jobs"). */
export async function startDataRightsWorkers(jobs: JobQueue, deps: { erasure: UserErasureService; biometrics: BiometricPurgeService; mail: DsrMail }, logger: Logger): Promise<void> {
  await jobs.work<DsrMailData>(DSR_MAIL_JOB, (data) => deps.mail.run(data));
  // The 60-second promise. When many users delete at once, a worker takes up to 50 purges and does
  // them together (one transaction, one take of each audit chain's lock); one purge that fails
  // alone must not hold back the others, so a failed batch is done again one purge at a time.
  await jobs.workBatch<BiometricPurgeData>(
    BIOMETRIC_PURGE_JOB,
    async (batch) => {
      const items = batch.map((j) => j.data);
      try {
        await deps.biometrics.runMany(items);
      } catch (err) {
        if (items.length === 1) throw err;
        logger.warn({ err, jobIds: batch.map((j) => j.id) }, 'biometric purge batch failed; purging each user alone');
        const failed = (await Promise.allSettled(items.map((d) => deps.biometrics.run(d)))).find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
      }
    },
    { batchSize: 50, localConcurrency: 2 },
  );
  await jobs.work<HardPurgeData>(HARD_PURGE_JOB, async (d) => {
    await deps.erasure.hardPurge(d.userId, d.asOf ? new Date(d.asOf) : undefined);
  });
  await jobs.work(PURGE_DUE_JOB, async () => {
    await deps.erasure.purgeDue();
  });
  await jobs.schedule(PURGE_DUE_JOB, '17 * * * *');
}
