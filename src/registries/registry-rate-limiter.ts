import Redis from 'ioredis';
import type { RegistryName } from './business-registry';

/**
 * Minimum spacing between two calls to a registry, from its documented limit (docs/checks.md). Spacing
 * (GCRA with no burst) rather than a fixed window means no window of the documented length ever holds
 * more than the limit, wherever it starts: GLEIF 60/min, SEC 10/s in total, Companies House 600 per
 * 5 minutes per key, ABN Lookup (no published limit) 2/s.
 */
export const REGISTRY_SPACING_MS: Record<RegistryName, number> = { gleif: 1000, sec_edgar: 110, uk_ch: 510, au_abr: 500 };

/** The budget is spent for longer than a check may wait in-process: the job is retried later by the job queue. */
export class RegistryBusyError extends Error {
  readonly code = 'registry_busy';
}

export interface RegistryRateLimiter {
  /** Resolves when this call may go out (it has reserved its slot); throws RegistryBusyError when that is more than `maxWaitMs` away. */
  acquire(registry: RegistryName): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One process's slots: enough for a single instance (the embedded default). */
export class MemoryRegistryRateLimiter implements RegistryRateLimiter {
  private readonly next = new Map<RegistryName, number>();
  constructor(
    private readonly spacing: Record<RegistryName, number> = REGISTRY_SPACING_MS,
    private readonly maxWaitMs = 20_000,
  ) {}

  async acquire(registry: RegistryName): Promise<void> {
    const now = Date.now();
    const slot = Math.max(now, this.next.get(registry) ?? 0);
    if (slot - now > this.maxWaitMs) throw new RegistryBusyError(`${registry}: the request budget is spent for the next ${slot - now} ms`);
    this.next.set(registry, slot + this.spacing[registry]);
    if (slot > now) await sleep(slot - now);
  }

  async close(): Promise<void> {}
}

/**
 * Reserves the slot atomically in Redis, on Redis's clock, so every instance sharing REDIS_URL shares one
 * budget per registry (and per Companies House key: the key's hash is part of the Redis key).
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nextSlot = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nextSlot)
if slot - now > tonumber(ARGV[2]) then return -1 end
redis.call('SET', KEYS[1], slot + tonumber(ARGV[1]), 'PX', slot - now + tonumber(ARGV[1]) + 1000)
return slot - now`;

export class RedisRegistryRateLimiter implements RegistryRateLimiter {
  private readonly redis: Redis;
  constructor(
    redisUrl: string,
    private readonly keyOf: (registry: RegistryName) => string,
    private readonly spacing: Record<RegistryName, number> = REGISTRY_SPACING_MS,
    private readonly maxWaitMs = 20_000,
  ) {
    this.redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  }

  async acquire(registry: RegistryName): Promise<void> {
    const wait = Number(await this.redis.eval(RESERVE, 1, this.keyOf(registry), this.spacing[registry], this.maxWaitMs));
    if (wait < 0) throw new RegistryBusyError(`${registry}: the shared request budget is spent for more than ${this.maxWaitMs} ms`);
    if (wait > 0) await sleep(wait);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
