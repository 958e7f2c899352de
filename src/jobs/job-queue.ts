import { PgBoss, type SendOptions as PgBossSendOptions } from 'pg-boss';
import type { EntityManager } from 'typeorm';
import { pgConnectionOptions, PostgresTarget } from '../db/data-source';
import type { Logger } from '../logger';
import type { QueueStat } from '../metrics/prometheus-metrics';
import { ReadyProbe, WORKER_BACKSTOP_SECONDS } from './ready-probe';
import { DEFAULT_RETRY, pgBossRetryOptions, type PgBossRetryOptions, type RetryPolicy } from './retry-policy';

export { DEFAULT_RETRY, type RetryPolicy } from './retry-policy';

export type JobHandler<T> = (data: T, meta: { id: string }) => Promise<void>;

export type SendOptions = {
  startAfter?: Date;
  singletonKey?: string;
  retry?: RetryPolicy;
  /** With singletonKey: at most one job per key in each window of this many seconds (instances starting together queue one). */
  singletonSeconds?: number;
  /** Seconds a job may stay active before pg-boss takes it back and retries it (its worker died). */
  expireInSeconds?: number;
  /** Enqueue inside this transaction, so the job exists exactly when the state change it follows commits. */
  within?: EntityManager;
};

type PgBossJobOptions = Pick<PgBossSendOptions, 'startAfter' | 'singletonKey' | 'singletonSeconds' | 'expireInSeconds' | keyof PgBossRetryOptions>;

/** SendOptions in pg-boss's terms, built field by field (see pgBossRetryOptions). */
function pgBossJobOptions(opts: Omit<SendOptions, 'within'>, scale: number): PgBossJobOptions {
  return {
    ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
    ...(opts.singletonKey ? { singletonKey: opts.singletonKey } : {}),
    ...(opts.singletonSeconds ? { singletonSeconds: opts.singletonSeconds } : {}),
    ...(opts.expireInSeconds ? { expireInSeconds: opts.expireInSeconds } : {}),
    ...(opts.retry ? pgBossRetryOptions(opts.retry, scale) : {}),
  };
}

/**
 * The durable job queue (pg-boss on our PostgreSQL). Jobs survive a crash, and a job runs on one
 * instance at a time however many instances poll.
 */
export class JobQueue {
  private readonly created = new Set<string>();
  private readonly insertCtes = new Map<string, string[] | null>();
  /** Wakes the workers of queues with a job due, one statement per poll interval (the workers' own polling is a backstop). */
  private readonly probe: ReadyProbe;
  /** Each worker's fetch interval when nothing wakes it. */
  private readonly workerPollSeconds: number;

  private constructor(
    private readonly boss: PgBoss,
    pollSeconds: number,
    private readonly logger: Logger,
    /** JOB_RETRY_SCALE: multiplies every retry delay (tests only; 1 in production). */
    private readonly retryScale: number,
    private readonly schema: string,
  ) {
    this.workerPollSeconds = Math.max(pollSeconds, WORKER_BACKSTOP_SECONDS);
    this.probe = new ReadyProbe(boss.getDb(), schema, pollSeconds, (queues) => this.wake(queues), logger);
  }

  /** Every worker of `queues` fetches now (one asleep waits out its interval otherwise); the workers are listed once per probe. */
  private wake(queues: ReadonlySet<string>): void {
    for (const w of this.boss.getWipData()) if (queues.has(w.name)) this.boss.notifyWorker(w.id);
  }

  /**
   * This process's workers of `name` fetch now: for a caller whose transaction, just committed, sent a job
   * there. Without it, on the embedded database (no LISTEN/NOTIFY) the job waits for the next probe, up to
   * JOB_POLL_SECONDS (a submitted session's checks: 0.2 s at p50, 0.5 s at p99 of its decision). A hint only:
   * a process that works no such jobs wakes nothing, and the job is still found by the others' probes.
   */
  wakeLocalWorkers(name: string): void {
    this.wake(new Set([name]));
  }

  static async start(
    target: PostgresTarget,
    logger: Logger,
    opts: { pollSeconds: number; supervise: boolean; superviseSeconds?: number; schema?: string; retryScale?: number; appRole?: string },
  ): Promise<JobQueue> {
    const boss = new PgBoss({
      ...pgConnectionOptions(target),
      max: 4,
      schema: opts.schema ?? 'pgboss',
      supervise: opts.supervise,
      // Expiry of jobs whose worker died runs in the monitor step, which has its own interval.
      ...(opts.superviseSeconds ? { superviseIntervalSeconds: opts.superviseSeconds, monitorIntervalSeconds: opts.superviseSeconds } : {}),
      schedule: opts.supervise,
      migrate: true,
      // A committed job on a `notify` queue wakes the workers at once (a hint: they still poll).
      // Only on a real PostgreSQL: the embedded one multiplexes every connection onto one session.
      useListenNotify: 'url' in target,
    });
    boss.on('error', (err: Error) => logger.error({ err }, 'job queue error'));
    await boss.start();
    if (opts.appRole) await grantJobSchema(boss, opts.schema ?? 'pgboss', opts.appRole);
    return new JobQueue(boss, opts.pollSeconds, logger, opts.retryScale ?? 1, opts.schema ?? 'pgboss');
  }

  /**
   * Creates the queue once per process. Call it at start-up for queues that are first sent to
   * inside a transaction: creating one there would use pg-boss's own pool, which on the embedded
   * database waits for that very transaction to end.
   */
  async ensureQueue(name: string, opts: { notify?: boolean } = {}): Promise<void> {
    if (this.created.has(name)) return;
    await this.boss.createQueue(name);
    // The queue's own retry settings apply to every job sent without a policy, cron runs included;
    // set at each start, so a queue created before keeps up with DEFAULT_RETRY and the scale.
    // An INSERT of jobs on a notify queue also runs pg_notify, delivered when its transaction commits.
    await this.boss.updateQueue(name, { ...pgBossRetryOptions(DEFAULT_RETRY, this.retryScale), ...(opts.notify ? { notify: true } : {}) });
    // pg-boss reads a queue's settings through its own pool the first time a job is sent to it,
    // and only then caches them. complete() of no job warms that cache now, outside any transaction.
    await this.boss.complete(name, '00000000-0000-0000-0000-000000000000');
    this.created.add(name);
  }

  async send<T extends object>(name: string, data: T, opts: SendOptions = {}): Promise<void> {
    await this.ensureQueue(name);
    const { within, ...jobOptions } = opts;
    await this.boss.send(name, data, { ...pgBossJobOptions(jobOptions, this.retryScale), ...dbOf(within) });
  }

  /**
   * Several jobs with the same options in one INSERT (pg-boss `insert`, the statement `send` runs
   * for one job): a transaction that commits many state changes queues their jobs in one round trip.
   */
  async sendMany<T extends object>(name: string, items: T[], opts: Omit<SendOptions, 'singletonKey'> = {}): Promise<void> {
    const { startAfter, ...rest } = opts;
    await this.sendJobs(name, items.map((data) => ({ data, startAfter })), rest);
  }

  /**
   * Jobs of one queue, each with its own start time and singleton key, in one INSERT (pg-boss `insert`):
   * a session's three test-mode steps, or a batch's, cost the creating transaction one round trip.
   */
  async sendJobs<T extends object>(name: string, jobs: { data: T; startAfter?: Date; singletonKey?: string }[], opts: Omit<SendOptions, 'singletonKey' | 'startAfter'> = {}): Promise<void> {
    if (jobs.length === 0) return;
    await this.ensureQueue(name);
    const { within, ...jobOptions } = opts;
    const options = pgBossJobOptions(jobOptions, this.retryScale);
    await this.boss.insert(
      name,
      pgBossJobs(jobs, options),
      dbOf(within),
    );
  }

  /**
   * pg-boss's own INSERT of these jobs (the statement `sendJobs` runs), not run but handed back as
   * common table expressions, so a caller can send the jobs in the same statement as its own writes
   * (SessionService.create: the session, its outbox row and its clock in one round trip). pg-boss
   * writes its statement through the executor it is given; this one keeps the text instead of running it.
   * The jobs' JSON is `$1`; the last expression is `jobs_sent` (one row per job inserted). Null when
   * pg-boss's statement is not of a shape known here (another pg-boss version): then use `sendJobs`.
   */
  async insertStatement<T extends object>(name: string, jobs: { data: T; startAfter?: Date; singletonKey?: string }[]): Promise<JobInsertStatement | null> {
    await this.ensureQueue(name);
    let captured: { text: string; values: unknown[] } | null = null;
    const recorder = {
      executeSql: async (text: string, values?: unknown[]) => {
        captured = { text, values: values ?? [] };
        return { rows: [] };
      },
    };
    await this.boss.insert(
      name,
      pgBossJobs(jobs, pgBossJobOptions({}, this.retryScale)),
      { db: recorder, returnId: true },
    );
    if (!captured) return null;
    const { text, values } = captured as { text: string; values: unknown[] };
    // pg-boss writes the same text for every insert into a queue: split it once.
    let ctes = this.insertCtes.get(text);
    if (ctes === undefined) this.insertCtes.set(text, (ctes = asCommonTableExpressions({ text, values })?.ctes ?? null));
    return ctes ? { ctes, values } : null;
  }

  /** Runs the jobs of a fetched batch one after another (`workBatch` hands over the whole batch). */
  async work<T extends object>(name: string, handler: JobHandler<T>, opts: { batchSize?: number; localConcurrency?: number } = {}): Promise<void> {
    await this.ensureQueue(name);
    await this.boss.work<T>(
      name,
      {
        pollingIntervalSeconds: this.workerPollSeconds,
        notifyPollingIntervalSeconds: this.workerPollSeconds,
        batchSize: opts.batchSize ?? 1,
        localConcurrency: opts.localConcurrency ?? 1,
      },
      async (jobs) => {
        for (const job of jobs) {
          try {
            await handler(job.data, { id: job.id });
          } catch (err) {
            this.logger.error({ err, job: name, jobId: job.id }, 'job failed');
            throw err;
          }
        }
      },
    );
    this.probe.watch(name);
  }

  /**
   * Like `work`, but the handler gets each fetched batch whole, so it can read and record the
   * batch in a few statements. A full batch fetches again at once instead of waiting for the next
   * poll (a backlog drains at the handler's speed, not batchSize per poll interval). A throw fails (and later retries) every job of the batch, so the
   * handler must make a second run of an already handled job harmless.
   */
  async workBatch<T extends object>(
    name: string,
    handler: (jobs: { id: string; data: T }[]) => Promise<void>,
    opts: { batchSize: number; localConcurrency: number },
  ): Promise<void> {
    await this.ensureQueue(name);
    await this.boss.work<T>(
      name,
      { pollingIntervalSeconds: this.workerPollSeconds, notifyPollingIntervalSeconds: this.workerPollSeconds, batchSize: opts.batchSize, localConcurrency: opts.localConcurrency, burstWhenBatchFull: true },
      async (jobs) => {
        try {
          await handler(jobs.map((j) => ({ id: j.id, data: j.data })));
        } catch (err) {
          this.logger.error({ err, job: name, jobIds: jobs.map((j) => j.id) }, 'job batch failed');
          throw err;
        }
      },
    );
    this.probe.watch(name);
  }

  /** A cron job that runs once per tick across all instances. */
  async schedule(name: string, cron: string): Promise<void> {
    await this.ensureQueue(name);
    await this.boss.schedule(name, cron, {});
  }

  /**
   * Per queue: jobs waiting, jobs running, and how long the oldest due job has waited since it
   * became due (null: none due). One statement over the unfinished jobs, for the metrics scrape.
   */
  async stats(): Promise<QueueStat[]> {
    const s = quoteIdent(this.schema);
    const { rows } = await this.boss.getDb().executeSql(
      `SELECT q.name,
              count(j.id) FILTER (WHERE j.state IN ('created', 'retry'))::int AS queued,
              count(j.id) FILTER (WHERE j.state = 'active')::int AS active,
              EXTRACT(EPOCH FROM now() - min(j.start_after) FILTER (WHERE j.state IN ('created', 'retry') AND j.start_after <= now()))::float8 AS oldest
         FROM ${s}.queue q LEFT JOIN ${s}.job j ON j.name = q.name AND j.state IN ('created', 'retry', 'active')
        GROUP BY q.name ORDER BY q.name`,
    );
    return (rows as { name: string; queued: number; active: number; oldest: number | null }[]).map((r) => ({ name: r.name, queued: r.queued, active: r.active, oldestQueuedSeconds: r.oldest }));
  }

  /** Answers when pg-boss is up and its tables answer: /readyz asks this. */
  async ready(): Promise<void> {
    await this.boss.getDb().executeSql(`SELECT 1 FROM ${quoteIdent(this.schema)}.queue LIMIT 1`);
  }

  /**
   * Waits up to 10 s for running jobs to finish; pg-boss then fails the ones still running
   * ("pg-boss shut down while active"), so they go back to the queue and are retried by the next
   * worker after their retry delay (src/jobs/retry-policy.ts): a job is never lost by a shutdown.
   */
  async stop(): Promise<void> {
    this.probe.stop();
    await this.boss.stop({ graceful: true, timeout: 10_000, close: true });
  }
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Jobs, each with its own start time and singleton key, as pg-boss's `insert` takes them. */
function pgBossJobs<T extends object>(jobs: { data: T; startAfter?: Date; singletonKey?: string }[], options: ReturnType<typeof pgBossJobOptions>) {
  return jobs.map((j) => ({ data: j.data, ...options, ...(j.startAfter ? { startAfter: j.startAfter.toISOString() } : {}), ...(j.singletonKey ? { singletonKey: j.singletonKey } : {}) }));
}

/** Jobs' INSERT as WITH-clause entries (`ctes`, joined by commas, the last named `jobs_sent`), and its values (`$1` onwards). */
export type JobInsertStatement = { ctes: string[]; values: unknown[] };

/**
 * pg-boss's insert statement (returning ids) as WITH-clause entries: a plain `INSERT ... RETURNING id`
 * becomes `jobs_sent AS (...)`; on a notify queue, `WITH ins AS (...), notified AS (...) SELECT id FROM ins
 * WHERE ...` keeps its entries and its final SELECT becomes `jobs_sent` (which still evaluates the
 * NOTIFY). Anything else: null. Exported for its unit test.
 */
export function asCommonTableExpressions(s: { text: string; values: unknown[] }): JobInsertStatement | null {
  if (s.values.length !== 1 || /\$[2-9]/.test(s.text)) return null;
  const text = s.text.trim();
  if (/^INSERT\b/i.test(text) && /RETURNING\s+id\s*$/i.test(text)) return { ctes: [`jobs_sent AS (${text})`], values: s.values };
  const notify = /^WITH\s+([\s\S]*\))\s*(SELECT\s+id\s+FROM\s+ins\s+WHERE[\s\S]*)$/i.exec(text);
  if (notify) return { ctes: [notify[1], `jobs_sent AS (${notify[2]})`], values: s.values };
  return null;
}

/** pg-boss's database seam bound to a TypeORM transaction, so a job commits with that transaction. */
function dbOf(within: EntityManager | undefined): { db?: { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> } } {
  const runner = within?.queryRunner;
  if (!runner) return {};
  return {
    db: {
      executeSql: async (text: string, values?: unknown[]) => ({
        rows: (await runner.query(text, values as unknown[], true)).records,
      }),
    },
  };
}

/**
 * pg-boss manages its schema as the owner (`target` is DATABASE_MIGRATION_URL when one is given);
 * the app's role sends jobs inside its own transactions and works them, so it gets rows in that
 * schema, never its DDL. Default privileges cover the tables pg-boss makes later (one per queue).
 */
async function grantJobSchema(boss: PgBoss, schema: string, role: string): Promise<void> {
  const s = `"${schema.replace(/"/g, '""')}"`;
  const r = `"${role.replace(/"/g, '""')}"`;
  const db = boss.getDb();
  await db.executeSql(`GRANT USAGE ON SCHEMA ${s} TO ${r}`);
  await db.executeSql(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${r}`);
  await db.executeSql(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${s} TO ${r}`);
  await db.executeSql(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${s} TO ${r}`);
  await db.executeSql(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${r}`);
  await db.executeSql(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${r}`);
}
