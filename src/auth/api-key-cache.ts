import { CoalescingReader } from '../db/coalescing-reader';
import type { TenantKeyActor } from './actor';

const MAX_ENTRIES = 10_000;

/** Of these key ids, the ones active now (not revoked, not deleted), read from the database. */
export type ActiveKeyIds = (ids: string[]) => Promise<Set<string>>;

/**
 * What a key authenticates as (tenant, mode, scopes) never changes after it is issued; only its
 * revocation (or deletion) does. So this process keeps the actor of every key it has authenticated,
 * and a request then asks the database only whether the key is still active: a lookup by primary key
 * instead of by hash, and concurrent requests' checks share one query. Each check is read by a query
 * that starts after its request arrived, so a key revoked anywhere (another instance, the CLI, psql)
 * is refused from the moment the revocation commits.
 */
export class ApiKeyCache {
  private readonly byHash = new Map<string, TenantKeyActor>();
  private readonly hashById = new Map<string, string>();
  private readonly liveness: CoalescingReader<string, true>;

  constructor(activeKeyIds: ActiveKeyIds) {
    this.liveness = new CoalescingReader(
      async (ids) => new Map([...(await activeKeyIds(ids))].map((id) => [id, true as const])),
      (id) => id,
    );
  }

  get(keyHash: string): TenantKeyActor | undefined {
    return this.byHash.get(keyHash);
  }

  put(keyHash: string, actor: TenantKeyActor): void {
    if (this.byHash.size >= MAX_ENTRIES) this.clear(); // rare; a full re-read is cheaper than LRU bookkeeping on every hit
    this.byHash.set(keyHash, actor);
    this.hashById.set(actor.keyId, keyHash);
  }

  /** Is the key active now? Read by a query that starts after this call (see CoalescingReader). */
  async stillActive(keyId: string): Promise<boolean> {
    const active = (await this.liveness.read(keyId)) === true;
    if (!active) this.evict(keyId);
    return active;
  }

  /** Forgets one key (revoked: it can never become active again). */
  private evict(keyId: string): void {
    const hash = this.hashById.get(keyId);
    if (hash === undefined) return;
    this.hashById.delete(keyId);
    this.byHash.delete(hash);
  }

  private clear(): void {
    this.byHash.clear();
    this.hashById.clear();
  }
}
