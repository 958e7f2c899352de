import type { JobQueue } from '../jobs/job-queue';
import type { BiometricPurgeService } from './biometric-purge.service';
import { BIOMETRIC_PURGE_JOB, BiometricPurgeData, HARD_PURGE_JOB, HardPurgeData, UserErasureService } from './user-erasure.service';

/** The hourly safety net: a hard purge whose own job was lost (e.g. a restored backup) still happens. */
export const PURGE_DUE_JOB = 'dsr-purge-due';

/** Queues sent to inside transactions: created (and told to notify) before any request sends to them. */
export async function ensureDataRightsQueues(jobs: JobQueue): Promise<void> {
  await jobs.ensureQueue(BIOMETRIC_PURGE_JOB, { notify: true });
  await jobs.ensureQueue(HARD_PURGE_JOB, { notify: true });
}

/** The data-rights workers (docs/data-rights.md, "Jobs"). */
export async function startDataRightsWorkers(jobs: JobQueue, deps: { erasure: UserErasureService; biometrics: BiometricPurgeService }): Promise<void> {
  // The 60-second promise: several users' purges run side by side.
  await jobs.work<BiometricPurgeData>(BIOMETRIC_PURGE_JOB, (d) => deps.biometrics.run(d), { batchSize: 4, localConcurrency: 4 });
  await jobs.work<HardPurgeData>(HARD_PURGE_JOB, async (d) => {
    await deps.erasure.hardPurge(d.userId, d.asOf ? new Date(d.asOf) : undefined);
  });
  await jobs.work(PURGE_DUE_JOB, async () => {
    await deps.erasure.purgeDue();
  });
  await jobs.schedule(PURGE_DUE_JOB, '17 * * * *');
}
