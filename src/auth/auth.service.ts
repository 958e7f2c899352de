import { DataSource } from 'typeorm';
import { ApiKeyEntity, SessionEntity } from '../../entities';
import { DomainError } from '../errors';
import { digestsEqual, sha256Hex } from '../ids';
import { Actor, isScope, Scope, TenantKeyActor } from './actor';
import type { ApiKeyCache } from './api-key-cache';
import { API_KEY_PATTERN, sessionIdOfClientSecret } from './secrets';

const unauthorized = () => new DomainError('unauthorized', 'Missing or invalid credential');

/**
 * Turns a bearer credential into an actor. Keys are looked up by hash, through a cache that
 * PostgreSQL empties at the commit of any change to the key (see ApiKeyCache), so a revocation is
 * refused at once on every instance.
 */
export class AuthService {
  constructor(
    private readonly db: DataSource,
    private readonly keyCache: ApiKeyCache | null = null,
  ) {}

  /** `null` for no credential at all; an `unauthorized` error for a wrong one. */
  async authenticate(authorization: string | undefined): Promise<Actor | null> {
    if (authorization === undefined || authorization === '') return null;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw unauthorized();
    const credential = m[1];
    if (API_KEY_PATTERN.test(credential)) return this.byApiKey(credential);
    const sessionId = sessionIdOfClientSecret(credential);
    if (sessionId) return this.byClientSecret(sessionId, credential);
    throw unauthorized();
  }

  private async byApiKey(key: string): Promise<TenantKeyActor> {
    const hash = sha256Hex(key);
    const cached = this.keyCache?.get(hash);
    if (cached && digestsEqual(cached.keyHash, hash)) return cached.actor;
    const generation = this.keyCache?.beginLookup() ?? 0;
    const row = await this.db.getRepository(ApiKeyEntity).findOneBy({ keyHash: hash });
    if (!row || row.revokedAt !== null || !digestsEqual(row.keyHash, hash)) throw unauthorized();
    const actor: TenantKeyActor = {
      kind: 'tenant_key',
      tenantId: row.tenantId,
      keyId: row.id,
      livemode: row.livemode,
      scopes: Object.freeze(row.scopes.filter(isScope)),
    };
    this.keyCache?.put(generation, { keyHash: row.keyHash, actor: Object.freeze(actor) });
    return actor;
  }

  private async byClientSecret(sessionId: string, secret: string): Promise<Actor> {
    const row = await this.db
      .getRepository(SessionEntity)
      .findOne({ where: { id: sessionId }, select: { id: true, tenantId: true, livemode: true, clientSecretHash: true } });
    if (!row || !digestsEqual(row.clientSecretHash, sha256Hex(secret))) throw unauthorized();
    return { kind: 'session_client', tenantId: row.tenantId, sessionId: row.id, livemode: row.livemode };
  }
}

/** Tenant-key actors only, with a scope; session clients are refused as if the resource did not exist to them. */
export function requireTenantKey(actor: Actor | null, scope: Scope): TenantKeyActor {
  if (!actor) throw unauthorized();
  if (actor.kind !== 'tenant_key') throw new DomainError('insufficient_scope', 'A session client_secret cannot perform this operation');
  if (!actor.scopes.includes(scope)) throw new DomainError('insufficient_scope', `This key lacks the ${scope} scope`);
  return actor;
}
