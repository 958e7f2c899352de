import type { AlsoWithin } from '../db/also-within';
import { DataSource } from 'typeorm';
import { ApiKeyEntity, FlowEntity, TenantEntity } from '../../entities';
import { ALL_SCOPES, isScope, Scope, type TenantKeyActor } from '../auth/actor';
import { newApiKey } from '../auth/secrets';
import { DomainError } from '../errors';
import { newId, sha256Hex } from '../ids';
import { AuditLogService } from '../audit/audit-log.service';

export type IssuedKey = { id: string; key: string; livemode: boolean; scopes: Scope[] };
/** A key as its tenant's settings list it: never the key itself, which is shown once at creation. */
export type ApiKeySummary = { id: string; livemode: boolean; last4: string; scopes: string[]; createdAt: Date; revokedAt: Date | null };
export type TenantSummary = { id: string; name: string; createdAt: Date; activeKeys: number };

/** Tenants and their secret keys. Keys are returned once here and stored only as a hash (docs/api-behaviour.md, "Credentials"). */
export class TenantService {
  constructor(
    private readonly db: DataSource,
    /** Key creation and revocation go to the tenant's audit log (docs/retention-and-audit.md). */
    private readonly audit: AuditLogService = new AuditLogService(db),
  ) {}

  async create(name: string): Promise<{ tenantId: string; testKey: IssuedKey; liveKey: IssuedKey }> {
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 200) throw new DomainError('invalid_request', 'A tenant name is 1 to 200 characters');
    const tenantId = newId('ten');
    return this.db.transaction(async (m) => {
      await m.insert(TenantEntity, { id: tenantId, name: trimmed });
      await m.insert(FlowEntity, {
        id: newId('flow'),
        tenantId,
        name: 'Default',
        isDefault: true,
        maxTier: 'T5',
        displayName: trimmed,
        logoUrl: null,
        primaryColor: '#1f6feb',
        locale: 'en-US',
        redirectUrl: null,
      });
      const testKey = await this.insertKey(m.getRepository(ApiKeyEntity), tenantId, false, []);
      const liveKey = await this.insertKey(m.getRepository(ApiKeyEntity), tenantId, true, []);
      await this.audit.appendMany([keyCreated(tenantId, testKey), keyCreated(tenantId, liveKey)], m);
      return { tenantId, testKey, liveKey };
    });
  }

  async list(): Promise<TenantSummary[]> {
    const rows: { id: string; name: string; created_at: Date; active_keys: string }[] = await this.db.query(
      `SELECT t.id, t.name, t.created_at, count(k.id) FILTER (WHERE k.revoked_at IS NULL) AS active_keys
         FROM tenants t LEFT JOIN api_keys k ON k.tenant_id = t.id
        GROUP BY t.id ORDER BY t.created_at, t.id`,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: new Date(r.created_at), activeKeys: Number(r.active_keys) }));
  }

  /** The tenant's keys of both modes, active first (at most 200). */
  async keysOf(tenantId: string): Promise<ApiKeySummary[]> {
    const rows: { id: string; livemode: boolean; last4: string; scopes: string[]; created_at: Date; revoked_at: Date | null }[] = await this.db.query(
      `SELECT id, livemode, last4, scopes, created_at, revoked_at FROM api_keys WHERE tenant_id = $1 ORDER BY revoked_at IS NOT NULL, livemode, created_at DESC LIMIT 200`,
      [tenantId],
    );
    return rows.map((r) => ({ id: r.id, livemode: r.livemode, last4: r.last4, scopes: r.scopes, createdAt: new Date(r.created_at), revokedAt: r.revoked_at ? new Date(r.revoked_at) : null }));
  }

  /** The mode of one of the tenant's keys, or null when the tenant has no such key. */
  async keyModeOf(tenantId: string, keyId: string): Promise<boolean | null> {
    const rows: { livemode: boolean }[] = await this.db.query(`SELECT livemode FROM api_keys WHERE id = $1 AND tenant_id = $2`, [keyId, tenantId]);
    return rows[0]?.livemode ?? null;
  }

  /** A key without scopes has them all (docs/api-behaviour.md, "Credentials"). */
  async createKey(tenantId: string, livemode: boolean, scopes: string[] = [], also?: AlsoWithin<IssuedKey>): Promise<IssuedKey> {
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) throw new DomainError('invalid_request', `Unknown scope(s): ${unknown.join(', ')}; known: ${ALL_SCOPES.join(', ')}`);
    const tenant = await this.db.getRepository(TenantEntity).findOneBy({ id: tenantId });
    if (!tenant) throw new DomainError('not_found', 'Tenant not found');
    return this.db.transaction(async (m) => {
      const issued = await this.insertKey(m.getRepository(ApiKeyEntity), tenantId, livemode, scopes.filter(isScope));
      await this.audit.append(keyCreated(tenantId, issued), m);
      await also?.(m, issued);
      return issued;
    });
  }

  /**
   * A tenant key issuing a key: it may grant only scopes it holds itself (no scopes means all of
   * its own), in its own tenant and mode.
   */
  async createKeyFor(actor: TenantKeyActor, scopes: string[]): Promise<IssuedKey> {
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) throw new DomainError('invalid_request', `Unknown scope(s): ${unknown.join(', ')}; known: ${ALL_SCOPES.join(', ')}`);
    const wanted = scopes.length ? scopes : [...actor.scopes];
    const beyond = wanted.filter((s) => !(actor.scopes as readonly string[]).includes(s));
    if (beyond.length) throw new DomainError('insufficient_scope', `A key can only grant scopes it holds; this key lacks ${beyond.join(', ')}`);
    return this.createKey(actor.tenantId, actor.livemode, wanted);
  }

  /** Revokes a key; a tenant asking (`owner`) reaches only the keys of its own tenant and mode. */
  async revokeKey(keyId: string, owner?: { tenantId: string; livemode: boolean }, also?: AlsoWithin<void>): Promise<void> {
    await this.db.transaction(async (m) => {
      const qb = m
        .getRepository(ApiKeyEntity)
        .createQueryBuilder()
        .update()
        .set({ revokedAt: () => 'now()' })
        .where('id = :keyId AND revoked_at IS NULL', { keyId });
      if (owner) qb.andWhere('tenant_id = :tenantId AND livemode = :livemode', owner);
      const res = await qb.execute();
      if (!res.affected) throw new DomainError('not_found', 'Active key not found');
      const key = await m.getRepository(ApiKeyEntity).findOneByOrFail({ id: keyId });
      await this.audit.append({ tenantId: key.tenantId, livemode: key.livemode, action: 'api_key.revoked', subjectId: keyId, detail: { by: owner ? 'tenant' : 'operator' } }, m);
      await also?.(m, undefined);
    });
  }

  private async insertKey(repo: ReturnType<DataSource['getRepository']>, tenantId: string, livemode: boolean, scopes: Scope[]): Promise<IssuedKey> {
    const key = newApiKey(livemode);
    const granted = scopes.length ? scopes : [...ALL_SCOPES];
    const id = newId('key');
    await repo.insert({ id, tenantId, livemode, keyHash: sha256Hex(key), last4: key.slice(-4), scopes: granted });
    return { id, key, livemode, scopes: granted };
  }
}

const keyCreated = (tenantId: string, k: IssuedKey) => ({ tenantId, livemode: k.livemode, action: 'api_key.created', subjectId: k.id, detail: { scopes: k.scopes, last4: k.key.slice(-4) } });
