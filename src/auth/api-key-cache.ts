import type { TenantKeyActor } from './actor';

const MAX_ENTRIES = 10_000;

type Entry = { keyHash: string; actor: TenantKeyActor };

/** Of these key ids, the ones active now (not revoked, not deleted), read from the database. */
export type ActiveKeyIds = (ids: string[]) => Promise<Set<string>>;

type Check = { ids: Set<string>; waiters: { id: string; resolve(active: boolean): void; reject(err: unknown): void }[] };

/**
 * What a key authenticates as (tenant, mode, scopes) never changes after it is issued; only its
 * revocation (or deletion) does. So this process keeps the actor of every key it has authenticated,
 * and a request then asks the database only whether the key is still active: a lookup by primary key
 * instead of by hash, and concurrent requests' checks share one query. Each check is read by a query
 * that starts after its request arrived, so a key revoked anywhere (another instance, the CLI, psql)
 * is refused from the moment the revocation commits.
 */
export class ApiKeyCache {
  private readonly byHash = new Map<string, Entry>();
  private readonly hashById = new Map<string, string>();
  private pending: Check | null = null;
  private scheduled = false;
  private inFlight = false;

  constructor(private readonly activeKeyIds: ActiveKeyIds) {}

  get(keyHash: string): Entry | undefined {
    return this.byHash.get(keyHash);
  }

  put(entry: Entry): void {
    if (this.byHash.size >= MAX_ENTRIES) this.clear(); // rare; a full re-read is cheaper than LRU bookkeeping on every hit
    this.byHash.set(entry.keyHash, entry);
    this.hashById.set(entry.actor.keyId, entry.keyHash);
  }

  /** Forgets one key (revoked: it can never become active again). */
  evict(keyId: string): void {
    const hash = this.hashById.get(keyId);
    if (hash === undefined) return;
    this.hashById.delete(keyId);
    this.byHash.delete(hash);
  }

  /**
   * Is the key active now? Answered by a query that starts after this call. Checks wait for the one
   * in flight to finish and then go together in the next query, so under load one query answers many
   * requests, and when idle a check starts at the end of the current turn of the event loop.
   */
  stillActive(keyId: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending ??= { ids: new Set(), waiters: [] };
      this.pending.ids.add(keyId);
      this.pending.waiters.push({ id: keyId, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.inFlight || this.scheduled || !this.pending) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const check = this.pending;
      this.pending = null;
      if (!check) return;
      this.inFlight = true;
      void this.run(check).finally(() => {
        this.inFlight = false;
        this.schedule();
      });
    });
  }

  private async run(check: Check): Promise<void> {
    let active: Set<string>;
    try {
      active = await this.activeKeyIds([...check.ids]);
    } catch (err) {
      for (const w of check.waiters) w.reject(err);
      return;
    }
    for (const w of check.waiters) {
      const ok = active.has(w.id);
      if (!ok) this.evict(w.id);
      w.resolve(ok);
    }
  }

  private clear(): void {
    this.byHash.clear();
    this.hashById.clear();
  }
}
