import { DataSource } from 'typeorm';
import { RateLimitOverrideEntity, TenantEntity } from '../../entities';
import { DomainError } from '../errors';
import { BUCKET_NAMES, BucketName, BUCKETS, isBucketName } from './buckets';
import { systemMillis, type MillisClock } from '../clock';

/** How long an instance trusts its copy of a tenant's overrides: a change is live everywhere within this. */
export const OVERRIDE_CACHE_MS = 1000;
export const MAX_LIMIT = 1_000_000_000;

export type RateLimitOverride = { tenantId: string; bucket: BucketName; limit: number; updatedAt: Date };

type Entry = { loadedAt: number; limits: Map<string, number> | null; pending: Promise<Map<string, number>> | null };

/**
 * Per-tenant, per-bucket limits in the database (the enterprise raise), read through a 1 s cache
 * per tenant so every instance picks a change up within a second, with no restart and no pub/sub.
 */
export class RateLimitOverrides {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly db: DataSource,
    private readonly clock: MillisClock = systemMillis,
  ) {}

  /** The limit for this tenant and bucket: its override, or the table's default. */
  async limitFor(tenantId: string | null, bucket: BucketName): Promise<number> {
    return this.cachedLimitFor(tenantId, bucket) ?? (await this.limitsOf(tenantId!)).get(bucket) ?? BUCKETS[bucket].limit;
  }

  /**
   * The limit while this instance's copy of the tenant's overrides is fresh (or there is no tenant),
   * else undefined: RateLimitService reads it first so that a metered request waits on nothing.
   */
  cachedLimitFor(tenantId: string | null, bucket: BucketName): number | undefined {
    if (!tenantId) return BUCKETS[bucket].limit;
    const entry = this.cache.get(tenantId);
    if (entry?.limits && this.clock() - entry.loadedAt < OVERRIDE_CACHE_MS) return entry.limits.get(bucket) ?? BUCKETS[bucket].limit;
    return undefined;
  }

  /** Sets (or with `limit` null, removes) one override. */
  async set(tenantId: string, bucket: string, limit: number | null): Promise<RateLimitOverride | null> {
    if (!isBucketName(bucket)) throw new DomainError('invalid_request', `Unknown bucket "${bucket}"; one of ${BUCKET_NAMES.join(', ')}`);
    if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)) {
      throw new DomainError('invalid_request', `limit must be an integer from 1 to ${MAX_LIMIT}`);
    }
    if (!(await this.db.getRepository(TenantEntity).existsBy({ id: tenantId }))) throw new DomainError('not_found', 'Tenant not found');
    const repo = this.db.getRepository(RateLimitOverrideEntity);
    this.cache.delete(tenantId);
    if (limit === null) {
      await repo.delete({ tenantId, bucket });
      return null;
    }
    await repo.upsert({ tenantId, bucket, limit }, ['tenantId', 'bucket']);
    const row = await repo.findOneByOrFail({ tenantId, bucket });
    return { tenantId, bucket, limit: row.limit, updatedAt: row.updatedAt };
  }

  async list(tenantId?: string): Promise<RateLimitOverride[]> {
    const rows = await this.db.getRepository(RateLimitOverrideEntity).find({ where: tenantId ? { tenantId } : {}, order: { tenantId: 'ASC', bucket: 'ASC' } });
    return rows.filter((r) => isBucketName(r.bucket)).map((r) => ({ tenantId: r.tenantId, bucket: r.bucket as BucketName, limit: r.limit, updatedAt: r.updatedAt }));
  }

  private async limitsOf(tenantId: string): Promise<Map<string, number>> {
    const now = this.clock();
    let entry = this.cache.get(tenantId);
    if (entry?.limits && now - entry.loadedAt < OVERRIDE_CACHE_MS) return entry.limits;
    if (entry?.pending) return entry.pending;
    if (!entry) {
      entry = { loadedAt: 0, limits: null, pending: null };
      this.cache.set(tenantId, entry);
    }
    const e = entry;
    e.pending = this.db
      .getRepository(RateLimitOverrideEntity)
      .find({ where: { tenantId }, select: { bucket: true, limit: true } })
      .then((rows) => {
        e.limits = new Map(rows.map((r) => [r.bucket, r.limit]));
        e.loadedAt = this.clock();
        return e.limits;
      })
      .finally(() => {
        e.pending = null;
      });
    return e.pending;
  }
}
