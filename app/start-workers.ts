import type { DataSource } from 'typeorm';
import type { SessionService } from '../src/sessions/session.service';
import { TEST_MODE_JOB } from '../src/sessions/session.service';
import { JobQueue } from '../src/jobs/job-queue';
import { TestModeAdvanceData, TestModeAdvanceJob } from '../src/verification/test-mode-advance.job';
import type { DeliverWebhookJob } from '../src/webhooks/deliver-webhook.job';
import type { DeliverWebhookData } from '../src/webhooks/webhook.dispatcher';
import { REFRESH_SANCTIONS_JOB, RefreshSanctionsData, RefreshSanctionsJob } from '../src/sanctions/refresh-sanctions.job';
import type { SanctionsScreeningService } from '../src/sanctions/screening.service';
import type { RunChecksJob } from '../src/verification/run-checks.job';
import { RUN_CHECKS_JOB, type RunChecksData } from '../src/hosted-flow/hosted-flow.service';

import { RETENTION_NIGHTLY_CRON, RETENTION_NIGHTLY_JOB, RETENTION_PURGE_CRON, RETENTION_PURGE_JOB, type RetentionRunService } from '../src/retention/retention-run.service';

import { AUDIT_REPLICATE_CRON, AUDIT_REPLICATE_JOB, type AuditReplicator } from '../src/audit/audit-replicator';

import { dropOldMail, MAIL_SWEEP_CRON, MAIL_SWEEP_JOB } from '../src/mail/mail-outbox';
import { BULK_IMPORT_JOB } from '../src/bulk-import/bulk-import.service';
import type { BulkImportData, BulkImportJob } from '../src/bulk-import/bulk-import.job';
import { type BlobReaper, type DeleteBlobsData, VAULT_DELETE_BLOBS_JOB, VAULT_SWEEP_CRON, VAULT_SWEEP_JOB } from '../src/vault/blob-reaper';
import { HostedCaptureRepository } from '../src/hosted-flow/hosted-capture.repository';

export const EXPIRE_SESSIONS_JOB = 'expire-sessions';

/** Registers every background worker on this process. */
export async function startWorkers(
  jobs: JobQueue,
  deps: {
    db: DataSource;
    sessions: SessionService;
    /** When the daily mail sweep runs (MAIL_SWEEP_CRON). */
    mailSweepCron?: string;
    runChecks?: Pick<RunChecksJob, 'run'>;
    webhookDelivery?: { job: DeliverWebhookJob; concurrency: number };
    sanctions?: { screening: SanctionsScreeningService; refresh: RefreshSanctionsJob; cron: string };
    retentionRuns?: RetentionRunService;
    auditReplicator?: AuditReplicator;
    bulkImport?: BulkImportJob;
    /** Deletes purged and orphaned artifact blobs (unset with VAULT_STORE=postgres). */
    blobReaper?: BlobReaper;
  },
): Promise<void> {
  const captures = new HostedCaptureRepository(deps.db);
  const testMode = new TestModeAdvanceJob(deps.db, deps.sessions, deps.sanctions?.screening, async (sessionId) => (await captures.tierDetails(sessionId)).business);
  await jobs.work<TestModeAdvanceData>(TEST_MODE_JOB, (data) => testMode.run(data), { batchSize: 5, localConcurrency: 2 });
  const runChecks = deps.runChecks;
  // One session per fetch, four in flight per process: a fetched batch runs one job after another, so a batch
  // of two kept the second session waiting for the first's whole run while a worker could have started it, and
  // a session submitted while both were busy waited for a poll. The engines bound the CPU (their own queue).
  if (runChecks) await jobs.work<RunChecksData>(RUN_CHECKS_JOB, (data) => runChecks.run(data), { batchSize: 1, localConcurrency: 4 });
  await jobs.work(EXPIRE_SESSIONS_JOB, async () => {
    while ((await deps.sessions.expireDue()) > 0) {
      /* keep going until no session is overdue */
    }
  });
  await jobs.schedule(EXPIRE_SESSIONS_JOB, '* * * * *');
  // Mail is kept for delivery and a short look back, not for ever (docs/accounts-and-oidc.md, "Mail").
  await jobs.work(MAIL_SWEEP_JOB, async () => void (await dropOldMail(deps.db)));
  await jobs.schedule(MAIL_SWEEP_JOB, deps.mailSweepCron ?? MAIL_SWEEP_CRON);
  const bulkImport = deps.bulkImport;
  // One import at a time per process: its batches are CPU- and database-bound, more at once only queue.
  if (bulkImport) await jobs.work<BulkImportData>(BULK_IMPORT_JOB, (data) => bulkImport.run(data), { batchSize: 1, localConcurrency: 1 });
  const retentionRuns = deps.retentionRuns;
  if (retentionRuns) {
    // docs/retention-and-audit.md: the nightly pass (reclassify, purge) and the hourly purge.
    await jobs.work(RETENTION_NIGHTLY_JOB, async () => void (await retentionRuns.nightly()));
    await jobs.schedule(RETENTION_NIGHTLY_JOB, RETENTION_NIGHTLY_CRON);
    await jobs.work(RETENTION_PURGE_JOB, async () => void (await retentionRuns.hourly()));
    await jobs.schedule(RETENTION_PURGE_JOB, RETENTION_PURGE_CRON);
  }
  const reaper = deps.blobReaper;
  if (reaper) {
    // docs/operations.md, "Evidence vault": blobs of committed purges, and the hourly orphan sweep.
    await jobs.work<DeleteBlobsData>(VAULT_DELETE_BLOBS_JOB, async (data) => void (await reaper.deleteUnreferenced(data.keys)), { batchSize: 4 });
    await jobs.work(VAULT_SWEEP_JOB, async () => void (await reaper.sweep()));
    await jobs.schedule(VAULT_SWEEP_JOB, VAULT_SWEEP_CRON);
  }
  const replicator = deps.auditReplicator;
  if (replicator) {
    await jobs.work(AUDIT_REPLICATE_JOB, async () => {
      const r = await replicator.replicate();
      // A log whose chain does not verify is not signed (audit.replication_refused is in the audit log); the job fails so it is seen and retried.
      if (r.refused.length) throw new Error(`audit replication refused ${r.refused.length} log(s) whose chain does not verify: ${r.refused.map((x) => x.log_id).join(', ')}`);
    });
    await jobs.schedule(AUDIT_REPLICATE_JOB, AUDIT_REPLICATE_CRON);
  }
  if (deps.sanctions) {
    const { refresh, cron } = deps.sanctions;
    await jobs.work<RefreshSanctionsData>(REFRESH_SANCTIONS_JOB, (data) => refresh.handle(jobs, data));
    // Every download switched off: no scheduled fetch (the CLI still loads files and can enqueue a run).
    if (refresh.configuredLists.length) {
      await jobs.schedule(REFRESH_SANCTIONS_JOB, cron);
      // Lists missing or older than 24 h are fetched now rather than at the next daily run.
      await refresh.enqueueStartUpCatchUp(jobs);
    }
  }
  if (deps.webhookDelivery) {
    // Attempts are network-bound: several fetch loops, each reading, sending and recording its
    // batch together (a few statements per batch instead of several per attempt).
    const { job, concurrency } = deps.webhookDelivery;
    const loops = Math.min(4, concurrency);
    await jobs.workBatch<DeliverWebhookData>(job.queue, (batch) => job.runBatch(batch.map((j) => j.data)), {
      batchSize: Math.max(1, Math.floor(concurrency / loops)),
      localConcurrency: loops,
    });
  }
}
