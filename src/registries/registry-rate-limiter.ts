import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import type { RegistryName } from './business-registry';

/** A documented limit: at most `n` calls in any window of `windowMs`, wherever the window starts. */
export type RegistryLimit = { n: number; windowMs: number };

/**
 * Each registry's documented limit (docs/checks.md): GLEIF 60/min, SEC 10/s in total, Companies House
 * 600 per 5 minutes per key, ABN Lookup (no published limit) 2/s.
 */
export const REGISTRY_LIMITS: Record<RegistryName, RegistryLimit> = {
  gleif: { n: 60, windowMs: 60_000 },
  sec_edgar: { n: 10, windowMs: 1000 },
  uk_ch: { n: 600, windowMs: 300_000 },
  au_abr: { n: 2, windowMs: 1000 },
};

/**
 * How much longer than its window a call stays in the log. A call is counted when it is allowed but reaches
 * the registry a little later (the request is written, a connection opened, the event loop busy), and not
 * all by the same delay: without a guard, calls allowed at a window's start but delayed and calls allowed
 * just after it but quick arrive in one window of the registry's. 10 % of the window and 100 ms.
 */
export const guardMs = (windowMs: number): number => Math.round(windowMs * 0.1) + 100;

/** The budget is spent for longer than a check may wait in-process: the job is retried later by the job queue. */
export class RegistryBusyError extends Error {
  readonly code = 'registry_busy';
  /** How long until the budget has room again, as the limiter last saw it. */
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

export interface RegistryRateLimiter {
  /**
   * Resolves when one call to `registry` may go out now, and counts it; the caller makes the call at once.
   * Throws RegistryBusyError when no call may go out within `maxWaitMs`.
   */
  acquire(registry: RegistryName): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A sliding log: the time of every call in the last window (and its guard) is kept, and a call goes out only
 * while the window ending now holds fewer than the limit, and no sooner than the window's share of one call
 * after the previous one (bursts would pile up in front of the registry and arrive together). The time is taken when the call is allowed, just before it
 * is made, so a timer that fires late cannot let two calls into one window's last place (a spacing or a
 * fixed window could). `tryTake` answers 0 (taken) or how long until the oldest call leaves the window.
 */
abstract class SlidingLogLimiter implements RegistryRateLimiter {
  constructor(
    protected readonly limits: Record<RegistryName, RegistryLimit>,
    private readonly maxWaitMs: number,
  ) {}

  protected abstract tryTake(registry: RegistryName): Promise<number>;
  abstract close(): Promise<void>;

  async acquire(registry: RegistryName): Promise<void> {
    const deadline = Date.now() + this.maxWaitMs;
    for (;;) {
      const wait = await this.tryTake(registry);
      if (wait <= 0) return;
      if (Date.now() + wait > deadline) throw new RegistryBusyError(`${registry}: its request budget is spent for the next ${wait} ms`, wait);
      // A little jitter, so the callers that waited for the same slot do not all ask again at once.
      await sleep(wait + Math.floor(Math.random() * 20));
    }
  }
}

/** One process's log: enough for a single instance (the embedded default). */
export class MemoryRegistryRateLimiter extends SlidingLogLimiter {
  private readonly log = new Map<RegistryName, number[]>();
  constructor(limits: Record<RegistryName, RegistryLimit> = REGISTRY_LIMITS, maxWaitMs = 20_000) {
    super(limits, maxWaitMs);
  }

  protected async tryTake(registry: RegistryName): Promise<number> {
    const { n, windowMs } = this.limits[registry];
    const now = Date.now();
    const span = windowMs + guardMs(windowMs);
    const times = (this.log.get(registry) ?? []).filter((t) => t > now - span);
    this.log.set(registry, times);
    const last = times.at(-1);
    if (last !== undefined && now - last < span / n) return Math.ceil(last + span / n - now);
    if (times.length < n) {
      times.push(now);
      return 0;
    }
    return times[0] + span - now + 1;
  }

  async close(): Promise<void> {}
}

/**
 * The same log in a Redis sorted set, read and written atomically on Redis's clock, so every instance
 * sharing REDIS_URL shares one budget per registry (and per Companies House key).
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
local n = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] and now - tonumber(last[2]) < window / n then return math.ceil(tonumber(last[2]) + window / n - now) end
if redis.call('ZCARD', KEYS[1]) < n then
  redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window + 1000)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tonumber(oldest[2]) + window - now + 1`;

export class RedisRegistryRateLimiter extends SlidingLogLimiter {
  private readonly redis: Redis;
  constructor(
    redisUrl: string,
    private readonly keyOf: (registry: RegistryName) => string,
    limits: Record<RegistryName, RegistryLimit> = REGISTRY_LIMITS,
    maxWaitMs = 20_000,
  ) {
    super(limits, maxWaitMs);
    this.redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  }

  protected async tryTake(registry: RegistryName): Promise<number> {
    const { n, windowMs } = this.limits[registry];
    return Number(await this.redis.eval(TAKE, 1, this.keyOf(registry), n, windowMs + guardMs(windowMs), randomBytes(6).toString('hex')));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
