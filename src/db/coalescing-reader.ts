type Waiter<V> = { key: string; resolve(value: V | undefined): void; reject(err: unknown): void };

/**
 * Reads keyed rows for many concurrent callers with few queries. A read waits for the query in
 * flight (if any) to finish and then goes, with every read that arrived meanwhile, in the next one;
 * when idle, a query starts at the end of the current turn of the event loop. Every caller is thus
 * answered by a query that started after it asked, so it never sees a state older than its own
 * request, and under load one query serves many requests.
 */
export class CoalescingReader<K, V> {
  private pending: { keys: Map<string, K>; waiters: Waiter<V>[] } | null = null;
  private scheduled = false;
  private inFlight = false;

  constructor(
    /** The rows for these keys, by `keyOf(key)`; absent keys have none. */
    private readonly load: (keys: K[]) => Promise<Map<string, V>>,
    private readonly keyOf: (key: K) => string,
  ) {}

  read(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const k = this.keyOf(key);
      this.pending ??= { keys: new Map(), waiters: [] };
      this.pending.keys.set(k, key);
      this.pending.waiters.push({ key: k, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.inFlight || this.scheduled || !this.pending) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.pending;
      this.pending = null;
      if (!batch) return;
      this.inFlight = true;
      this.load([...batch.keys.values()]).then(
        (rows) => {
          for (const w of batch.waiters) w.resolve(rows.get(w.key));
        },
        (err: unknown) => {
          for (const w of batch.waiters) w.reject(err);
        },
      ).finally(() => {
        this.inFlight = false;
        this.schedule();
      });
    });
  }
}
