import type { Logger } from '../logger';

type Db = { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };

/**
 * How long a pg-boss worker waits between fetches of its own when nothing woke it. The probe wakes a
 * worker whose queue has a job due, so this only bounds how long a missed wake-up (a probe that failed)
 * delays a job.
 */
export const WORKER_BACKSTOP_SECONDS = 30;

/**
 * One statement per poll interval that asks which of this process's queues have a job due now, and
 * wakes those queues' workers (issue 44). pg-boss polls per worker: the ~30 workers of a process
 * (every queue times its local concurrency) fetched every JOB_POLL_SECONDS, 60 fetches a second of
 * an idle server, most of its idle CPU and the embedded database's. A due job is still taken
 * within one poll interval, as before; a job a worker's own fetch leaves behind (a backlog) is seen
 * by the next probe, and LISTEN/NOTIFY still wakes a worker at once where it runs.
 */
export class ReadyProbe {
  private readonly queues = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private failing = false;

  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly pollSeconds: number,
    /** Wakes every worker of these queues (each fetches at once). */
    private readonly wake: (queues: ReadonlySet<string>) => void,
    private readonly logger: Logger,
  ) {}

  /** Watches `queue` from now on; the first queue starts the probe. */
  watch(queue: string): void {
    this.queues.add(queue);
    if (this.timer) return;
    this.timer = setInterval(() => void this.probe(), this.pollSeconds * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The queues with a job a worker could take now (pg-boss's fetch predicate, the partial index job_i11 of each queue). */
  async probe(): Promise<void> {
    if (this.running) return; // a slow database: the next tick asks again
    this.running = true;
    try {
      const { rows } = await this.db.executeSql(
        `SELECT q.name FROM unnest($1::text[]) AS q(name)
          WHERE EXISTS (SELECT 1 FROM ${quoteIdent(this.schema)}.job j
                         WHERE j.name = q.name AND j.state < 'active' AND NOT j.blocked AND j.start_after <= now())`,
        [[...this.queues]],
      );
      const due = new Set((rows as { name: string }[]).map((r) => r.name));
      if (due.size > 0) this.wake(due);
      if (this.failing) this.logger.info('job queue probe answers again');
      this.failing = false;
    } catch (err) {
      // Once per outage: the workers' own backstop fetches still run, and report their own errors.
      if (!this.failing) this.logger.warn({ err }, 'job queue probe failed; workers fall back to polling every 30 s');
      this.failing = true;
    } finally {
      this.running = false;
    }
  }
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
