import type { JobHandler } from './job-queue';

/**
 * How a queue's jobs are worked on this process: one at a time (`each`), or a fetched batch handed over
 * whole (`batch`, JobQueue.workBatch). The data type is the queue's own: `never` here lets a handler of
 * any data shape stand in the registry without a cast (the senders are what type the data).
 */
export type JobWorker =
  | { each: JobHandler<never>; batchSize?: number; localConcurrency?: number }
  | { batch: (jobs: { id: string; data: never }[]) => Promise<void>; batchSize: number; localConcurrency: number };

/**
 * One queue as its module declares it: app/job-registry.ts collects every module's list and starts
 * them all, and docs/architecture.md ("Jobs") lists them. `Parts` are the objects the worker is made
 * of, given by the process (app/container.ts).
 */
export type JobDefinition<Parts> = {
  /** The pg-boss queue (docs/architecture.md, "Background jobs", says what its jobs do). */
  readonly queue: string;
  /**
   * Sent to inside a transaction: created at start-up, before any request can send to it, and told to
   * notify so its commits wake the workers (JobQueue.ensureQueue says why it cannot be created there).
   */
  readonly sentInTransactions?: boolean;
  /** The worker; null where this process has none (e.g. no blob store to reap). */
  readonly worker: (parts: Parts) => JobWorker | null;
  /** When the queue also runs on a schedule: its cron, or null where the configuration turns it off. */
  readonly cron?: (parts: Parts) => string | null;
  /** Runs once the worker and its schedule stand (a start-up catch-up, say). */
  readonly started?: (parts: Parts) => Promise<void>;
};
