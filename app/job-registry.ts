import type { JobDefinition, JobWorker } from '../src/jobs/job-definition';
import type { JobQueue } from '../src/jobs/job-queue';
import { auditJobs } from '../src/audit/audit.jobs';
import { bulkImportJobs } from '../src/bulk-import/bulk-import.jobs';
import { dataRightsJobs } from '../src/data-rights/data-rights.jobs';
import { mailJobs } from '../src/mail/mail.jobs';
import { retentionJobs } from '../src/retention/retention.jobs';
import { sanctionsJobs } from '../src/sanctions/sanctions.jobs';
import { sessionJobs } from '../src/sessions/session.jobs';
import { vaultJobs } from '../src/vault/vault.jobs';
import { verificationJobs } from '../src/verification/verification.jobs';
import { webhookJobs } from '../src/webhooks/webhook.jobs';
import { RUN_CHECKS_JOB } from '../src/sessions/session-queues';
import type { WorkerQueues } from '../src/config';

type PartsOf<L> = L extends readonly JobDefinition<infer P>[] ? P : never;

/** Everything the workers are made of: what each module's definitions ask for, given by app/container.ts. */
export type WorkerParts = PartsOf<typeof sessionJobs> &
  PartsOf<typeof verificationJobs> &
  PartsOf<typeof webhookJobs> &
  PartsOf<typeof sanctionsJobs> &
  PartsOf<typeof bulkImportJobs> &
  PartsOf<typeof mailJobs> &
  PartsOf<typeof retentionJobs> &
  PartsOf<typeof vaultJobs> &
  PartsOf<typeof auditJobs> &
  PartsOf<typeof dataRightsJobs>;

/**
 * Every queue of the service, as the modules declare them (docs/architecture.md, "Background jobs",
 * lists each; test/job-registry.test.ts keeps the two equal).
 */
export const JOB_DEFINITIONS: readonly JobDefinition<WorkerParts>[] = [
  ...verificationJobs,
  ...sessionJobs,
  ...webhookJobs,
  ...sanctionsJobs,
  ...bulkImportJobs,
  ...mailJobs,
  ...retentionJobs,
  ...vaultJobs,
  ...auditJobs,
  ...dataRightsJobs,
];

/** Creates the queues sent to inside transactions; at start-up, before anything can send (JobQueue.ensureQueue). */
export async function ensureJobQueues(jobs: Pick<JobQueue, 'ensureQueue'>, definitions: readonly JobDefinition<never>[] = JOB_DEFINITIONS): Promise<void> {
  for (const d of definitions) if (d.sentInTransactions) await jobs.ensureQueue(d.queue, { notify: true });
}

/** Starts the workers of `definitions` on this process: each one's worker, then its schedule. */
export async function startJobs<P>(jobs: JobQueue, definitions: readonly JobDefinition<P>[], parts: P): Promise<void> {
  for (const d of definitions) {
    const worker = d.worker(parts);
    if (!worker) continue;
    await work(jobs, d.queue, worker);
    const cron = d.cron?.(parts);
    if (cron) await jobs.schedule(d.queue, cron);
    await d.started?.(parts);
  }
}

/** The registered queues a process works under WORKER_QUEUES: the checks, everything else, or all. */
export function definitionsFor(queues: WorkerQueues): readonly JobDefinition<WorkerParts>[] {
  if (queues === 'all') return JOB_DEFINITIONS;
  return JOB_DEFINITIONS.filter((d) => (d.queue === RUN_CHECKS_JOB) === (queues === 'checks'));
}

/** The registered workers this process runs (WORKER_ENABLED, WORKER_QUEUES). */
export function startWorkers(jobs: JobQueue, parts: WorkerParts, queues: WorkerQueues = 'all'): Promise<void> {
  return startJobs(jobs, definitionsFor(queues), parts);
}

function work(jobs: JobQueue, queue: string, w: JobWorker): Promise<void> {
  if ('batch' in w) return jobs.workBatch<never>(queue, w.batch, { batchSize: w.batchSize, localConcurrency: w.localConcurrency });
  return jobs.work<never>(queue, w.each, { batchSize: w.batchSize, localConcurrency: w.localConcurrency });
}
