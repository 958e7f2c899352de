import { type EmbeddedPostgres, openEmbeddedPostgres } from './embedded-postgres';

/** What the keeper tells its owner (the server logs each, app/keep-embedded-database.ts). */
export type KeeperEvents = {
  lost(reason: string): void;
  restarted(attempts: number): void;
  restartFailed(err: Error, attempt: number): void;
};

/** Between two failed starts; a start itself takes seconds (PGlite opens and replays its WAL). */
const RETRY_DELAYS_MS = [500, 1_000, 2_000, 5_000, 10_000];

/**
 * Keeps the embedded database's own process running for the process that started it (issue #40
 * finding 3). `npm start` has no supervisor, so when that process ends under the server (a crash, the
 * OOM killer, or PGlite's session ended by a FATAL error) the server starts it again on the same
 * DATA_DIR instead of exiting: its pool's connections fail meanwhile and reconnect after, and
 * /readyz answers `database_restarting` until the database serves again.
 */
export class EmbeddedDatabaseKeeper {
  private current: EmbeddedPostgres;
  private closed = false;
  private restartingNow = false;
  private restartCount = 0;
  private readonly listeners: Partial<KeeperEvents>[] = [];

  constructor(
    private readonly dataDir: string,
    first: EmbeddedPostgres,
  ) {
    this.current = first;
    void this.watch();
  }

  /** The database's process ended and is being started again. */
  get restarting(): boolean {
    return this.restartingNow;
  }

  /** How many times the database was started again since this process started it. */
  get restarts(): number {
    return this.restartCount;
  }

  on(events: Partial<KeeperEvents>): void {
    this.listeners.push(events);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.current.close();
  }

  private async watch(): Promise<void> {
    for (;;) {
      const reason = await this.current.lost; // never settles once close() began
      if (this.closed) return;
      this.restartingNow = true;
      for (const l of this.listeners) l.lost?.(reason);
      for (let attempt = 1; ; attempt++) {
        try {
          const started = await openEmbeddedPostgres(this.dataDir);
          if (this.closed) return void (await started.close());
          this.current = started;
          this.restartCount++;
          this.restartingNow = false;
          for (const l of this.listeners) l.restarted?.(attempt);
          break;
        } catch (err) {
          for (const l of this.listeners) l.restartFailed?.(err as Error, attempt);
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)]));
          if (this.closed) return;
        }
      }
    }
  }
}
