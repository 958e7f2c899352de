import { DataSource } from 'typeorm';
import { CoalescingReader } from '../db/coalescing-reader';
import { ApiKeyEntity, SessionEntity } from '../../entities';
import { DomainError } from '../errors';
import { digestsEqual, sha256Hex } from '../ids';
import { Actor, isScope, Scope, tenantKeyRefusal, TenantKeyActor } from './actor';
import { revokedKeyIds } from './key-revocations';
import type { PreparedSql } from '../db/prepared-sql';
import { API_KEY_PATTERN, sessionIdOfClientSecret } from './secrets';
import { looksLikeJwt, type AccessTokenVerifier } from './access-token.verifier';

const unauthorized = () => new DomainError('unauthorized', 'Missing or invalid credential');

/**
 * Turns a bearer credential into an actor. A key seen before is answered from this process's
 * ApiKeyCache (below), which still asks the database whether the key is active on every call, so a
 * revocation is refused at once on every instance.
 */
export class AuthService {
  private readonly keyCache: ApiKeyCache;

  constructor(
    private readonly db: DataSource,
    sql: PreparedSql,
    /** End users' access tokens (docs/accounts-and-oidc.md). */
    private readonly endUserTokens: AccessTokenVerifier,
  ) {
    this.keyCache = new ApiKeyCache(async (ids) => {
      const rows = await sql.rows<{ id: string }>('active-api-keys', 'SELECT id FROM api_keys WHERE id = ANY($1) AND revoked_at IS NULL', [ids]);
      return new Set(rows.map((r) => r.id));
    });
  }

  /**
   * Of the given key ids, those that are revoked (or gone). Long-lived connections (WebSocket
   * subscriptions) authenticate once, so they re-check their keys with this on a short interval: a
   * revocation made anywhere (another instance, the CLI) reaches them through the database.
   */
  revokedKeyIds(ids: readonly string[]): Promise<Set<string>> {
    return revokedKeyIds(this.db, ids);
  }

  /** `null` for no credential at all; an `unauthorized` error for a wrong one. */
  async authenticate(authorization: string | undefined): Promise<Actor | null> {
    if (authorization === undefined || authorization === '') return null;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw unauthorized();
    const credential = m[1];
    if (API_KEY_PATTERN.test(credential)) return this.byApiKey(credential);
    const sessionId = sessionIdOfClientSecret(credential);
    if (sessionId) return this.byClientSecret(sessionId, credential);
    if (looksLikeJwt(credential)) return this.endUserTokens.verify(credential);
    throw unauthorized();
  }

  private async byApiKey(key: string): Promise<TenantKeyActor> {
    const hash = sha256Hex(key);
    const cached = this.keyCache.get(hash);
    if (cached) {
      if (await this.keyCache.stillActive(cached.keyId)) return cached;
      throw unauthorized();
    }
    const row = await this.db.getRepository(ApiKeyEntity).findOneBy({ keyHash: hash });
    if (!row || row.revokedAt !== null || !digestsEqual(row.keyHash, hash)) throw unauthorized();
    const actor: TenantKeyActor = Object.freeze({
      kind: 'tenant_key',
      tenantId: row.tenantId,
      keyId: row.id,
      livemode: row.livemode,
      scopes: Object.freeze(row.scopes.filter(isScope)),
    });
    this.keyCache.put(row.keyHash, actor);
    return actor;
  }

  private async byClientSecret(sessionId: string, secret: string): Promise<Actor> {
    const row = await this.db
      .getRepository(SessionEntity)
      .findOne({ where: { id: sessionId }, select: { id: true, tenantId: true, livemode: true, clientSecretHash: true, appClientSecretHash: true } });
    const hash = sha256Hex(secret);
    // The app's secret (minted at the hosted page's T5 handoff) has the same powers as the one returned on create.
    const ok = row && (digestsEqual(row.clientSecretHash, hash) || (row.appClientSecretHash != null && digestsEqual(row.appClientSecretHash, hash)));
    if (!row || !ok) throw unauthorized();
    return { kind: 'session_client', tenantId: row.tenantId, sessionId: row.id, livemode: row.livemode };
  }
}

const MAX_CACHED_KEYS = 10_000;

/** Of these key ids, the ones active now (not revoked, not deleted), read from the database. */
type ActiveKeyIds = (ids: string[]) => Promise<Set<string>>;

/**
 * What a key authenticates as (tenant, mode, scopes) never changes after it is issued; only its
 * revocation (or deletion) does. So this process keeps the actor of every key it has authenticated,
 * and a request then asks the database only whether the key is still active: a lookup by primary key
 * instead of by hash, and concurrent requests' checks share one query. Each check is read by a query
 * that starts after its request arrived, so a key revoked anywhere (another instance, the CLI, psql)
 * is refused from the moment the revocation commits.
 */
class ApiKeyCache {
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
    if (this.byHash.size >= MAX_CACHED_KEYS) this.clear(); // rare; a full re-read is cheaper than LRU bookkeeping on every hit
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

/** Tenant-key actors only, with a scope; session clients are refused as if the resource did not exist to them. */
export function requireTenantKey(actor: Actor | null, scope: Scope): TenantKeyActor {
  const refusal = tenantKeyRefusal(actor, scope);
  if (refusal) throw refusal;
  return actor as TenantKeyActor;
}
