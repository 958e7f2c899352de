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
 * Calls spaced evenly: one call per `(window + guard) / n`, so any window of the registry's, wherever it
 * starts, holds at most `n` calls, and a burst never piles up in front of the registry to arrive together.
 * The time is taken when the call is allowed, just before it is made, so a timer that fires late cannot
 * let two calls into one slot. `tryTake` answers 0 (taken) or how long until the next slot.
 */
abstract class SpacedCallsLimiter implements RegistryRateLimiter {
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

/** The gap between two calls to a registry under `limit`. */
export const spacingMs = ({ n, windowMs }: RegistryLimit): number => (windowMs + guardMs(windowMs)) / n;

/** One process's slots: enough for a single instance (the embedded default). */
export class MemoryRegistryRateLimiter extends SpacedCallsLimiter {
  private readonly lastCall = new Map<string, number>();
  constructor(limits: Record<RegistryName, RegistryLimit> = REGISTRY_LIMITS, maxWaitMs = 20_000) {
    super(limits, maxWaitMs);
  }

  protected async tryTake(registry: RegistryName): Promise<number> {
    return this.takeSlot(registry, registry);
  }

  /** `key`: the budget's name (a registry, or a registry and a credential); `registry`: whose limit it follows. */
  takeSlot(key: string, registry: RegistryName): number {
    const gap = spacingMs(this.limits[registry]);
    const now = Date.now();
    const last = this.lastCall.get(key);
    if (last !== undefined && now - last < gap) return Math.ceil(last + gap - now);
    this.lastCall.set(key, now);
    return 0;
  }

  async close(): Promise<void> {}
}

/**
 * The same slots in Redis, read and written atomically on Redis's clock, so every instance sharing
 * REDIS_URL shares one budget per registry (and per Companies House key).
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local gap = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]))
if last and now - last < gap then return math.ceil(last + gap - now) end
redis.call('SET', KEYS[1], now, 'PX', math.ceil(gap) + 1000)
return 0`;

/**
 * Shared slots in Redis. When Redis does not answer, a call takes this process's own slot instead (the
 * limiter of a single instance), so checks go on rather than fail; several instances then each keep their own
 * spacing, which can go past the registry's limit until Redis is back (docs/checks.md). Logged once per outage.
 */
export class RedisRegistryRateLimiter extends SpacedCallsLimiter {
  private readonly redis: Redis;
  private readonly fallback: MemoryRegistryRateLimiter;
  private redisDown = false;
  private connected: Promise<void> | null = null;
  constructor(
    redisUrl: string,
    private readonly keyOf: (registry: RegistryName) => string,
    limits: Record<RegistryName, RegistryLimit> = REGISTRY_LIMITS,
    maxWaitMs = 20_000,
    private readonly onRedisDown: (err: Error) => void = () => {},
  ) {
    super(limits, maxWaitMs);
    this.fallback = new MemoryRegistryRateLimiter(limits, maxWaitMs);
    // Fail fast while Redis is down: a queued command would hold the check until the reconnect.
    this.redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 1000 });
    this.redis.on('error', () => {});
  }

  protected async tryTake(registry: RegistryName): Promise<number> {
    try {
      // Connected once, on first use; after that ioredis reconnects by itself, and a call while it does fails at once.
      await (this.connected ??= this.redis.connect().catch(() => {}));
      const wait = Number(await this.redis.eval(TAKE, 1, this.keyOf(registry), spacingMs(this.limits[registry])));
      this.redisDown = false;
      return wait;
    } catch (err) {
      if (!this.redisDown) this.onRedisDown(err as Error);
      this.redisDown = true;
      return this.fallback.takeSlot(this.keyOf(registry), registry);
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
