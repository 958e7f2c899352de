import { DataSource } from 'typeorm';
import { ApiKeyEntity, SessionEntity } from '../../entities';
import { DomainError } from '../errors';
import { digestsEqual, sha256Hex } from '../ids';
import { Actor, isScope, Scope, tenantKeyRefusal, TenantKeyActor } from './actor';
import { ApiKeyCache } from './api-key-cache';
import { revokedKeyIds } from './key-revocations';
import type { PreparedSql } from '../db/prepared-sql';
import { API_KEY_PATTERN, sessionIdOfClientSecret } from './secrets';
import { looksLikeJwt, type AccessTokenVerifier } from '../oidc/access-token.verifier';

const unauthorized = () => new DomainError('unauthorized', 'Missing or invalid credential');

/**
 * Turns a bearer credential into an actor. A key seen before is answered from this process's
 * ApiKeyCache, which still asks the database whether the key is active on every call, so a
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

/** Tenant-key actors only, with a scope; session clients are refused as if the resource did not exist to them. */
export function requireTenantKey(actor: Actor | null, scope: Scope): TenantKeyActor {
  const refusal = tenantKeyRefusal(actor, scope);
  if (refusal) throw refusal;
  return actor as TenantKeyActor;
}
