import { DataSource } from 'typeorm';
import { ApiKeyEntity, FlowEntity, TenantEntity } from '../../entities';
import { ALL_SCOPES, isScope, Scope } from '../auth/actor';
import { newApiKey } from '../auth/secrets';
import { DomainError } from '../errors';
import { newId, sha256Hex } from '../ids';

export type IssuedKey = { id: string; key: string; livemode: boolean; scopes: Scope[] };
export type TenantSummary = { id: string; name: string; createdAt: Date; activeKeys: number };

/** Tenants and their secret keys. Keys are returned once here and stored only as a hash (docs/api-behaviour.md, "Credentials"). */
export class TenantService {
  constructor(private readonly db: DataSource) {}

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

  /** A key without scopes has them all (docs/api-behaviour.md, "Credentials"). */
  async createKey(tenantId: string, livemode: boolean, scopes: string[] = []): Promise<IssuedKey> {
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) throw new DomainError('invalid_request', `Unknown scope(s): ${unknown.join(', ')}; known: ${ALL_SCOPES.join(', ')}`);
    const tenant = await this.db.getRepository(TenantEntity).findOneBy({ id: tenantId });
    if (!tenant) throw new DomainError('not_found', 'Tenant not found');
    return this.insertKey(this.db.getRepository(ApiKeyEntity), tenantId, livemode, scopes.filter(isScope));
  }

  /** Revokes a key; `tenantId` confines the search to one tenant when a tenant asks. */
  async revokeKey(keyId: string, tenantId?: string): Promise<void> {
    const res = await this.db
      .getRepository(ApiKeyEntity)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()' })
      .where('id = :keyId AND revoked_at IS NULL', { keyId })
      .andWhere(tenantId ? 'tenant_id = :tenantId' : 'true', { tenantId })
      .execute();
    if (!res.affected) throw new DomainError('not_found', 'Active key not found');
  }

  private async insertKey(repo: ReturnType<DataSource['getRepository']>, tenantId: string, livemode: boolean, scopes: Scope[]): Promise<IssuedKey> {
    const key = newApiKey(livemode);
    const granted = scopes.length ? scopes : [...ALL_SCOPES];
    const id = newId('key');
    await repo.insert({ id, tenantId, livemode, keyHash: sha256Hex(key), last4: key.slice(-4), scopes: granted });
    return { id, key, livemode, scopes: granted };
  }
}
