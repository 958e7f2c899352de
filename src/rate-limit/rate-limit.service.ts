import { Redis } from 'ioredis';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Actor } from '../auth/actor';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import type { BucketName } from './buckets';
import { RateLimitOverrides } from './rate-limit-overrides';
import { AtomicCharge, Clock, MultiGet, SlidingWindow, STORE_DURATION_S, STORE_POINTS, WindowState } from './sliding-window';

/** Who is counted (D9): a key (or a session's client_secret), an OAuth client, or a client IP. */
export type Subject =
  | { kind: 'key'; id: string; tenantId: string; livemode: boolean }
  | { kind: 'session'; id: string; tenantId: string; livemode: boolean }
  | { kind: 'client'; id: string }
  | { kind: 'ip'; ip: string };

export type Decision = WindowState & {
  bucket: BucketName;
  /** Test-mode subjects get the `service-debug-bucket-state` header on a 429. */
  testMode: boolean;
};

export type RateLimitOptions = {
  redisUrl?: string;
  /** Redis key prefix; instances that must share counts use the same one. */
  keyPrefix?: string;
  clock?: Clock;
};

type SlidingChargeClient = { slidingCharge(numKeys: number, ...args: string[]): Promise<unknown> };

/**
 * KEYS: the 12 older slices then the current one; ARGV: limit, TTL, units wanted. Admits as many
 * of the units as fit and returns {admitted, current slice after, older slices...}. Same value
 * format as rate-limiter-flexible's keys (a plain integer with a TTL), so the insurance path and
 * refunds (`reward`) work on them unchanged.
 */
const SLIDING_CHARGE_LUA = `
local n = #KEYS
local vals = redis.call('MGET', unpack(KEYS))
local out = {0, 0}
local total = 0
for i = 1, n - 1 do
  local v = tonumber(vals[i]) or 0
  out[i + 2] = v
  total = total + v
end
local cur = tonumber(vals[n]) or 0
local take = math.min(tonumber(ARGV[3]), math.max(0, tonumber(ARGV[1]) - total - cur))
if take > 0 then
  redis.call('SET', KEYS[n], 0, 'EX', ARGV[2], 'NX')
  cur = redis.call('INCRBY', KEYS[n], take)
end
out[1] = take
out[2] = cur
return out`;

/** The Redis fast paths of the window, over the store's key format (`${prefix}:${key}`). */
export function redisWindowOps(redis: Redis, keyPrefix: string, durationS: number): { multiGet: MultiGet; atomicCharge: AtomicCharge } {
  redis.defineCommand('slidingCharge', { lua: SLIDING_CHARGE_LUA });
  return {
    multiGet: async (ids) => {
      if (redis.status !== 'ready') throw new Error('Redis not ready');
      const values = await redis.mget(ids.map((k) => `${keyPrefix}:${k}`));
      return values.map((v) => (v === null ? 0 : Number.parseInt(v, 10)));
    },
    atomicCharge: async (ids, limit, count) => {
      if (redis.status !== 'ready') throw new Error('Redis not ready');
      const keys = ids.map((k) => `${keyPrefix}:${k}`);
      const r = (await (redis as unknown as SlidingChargeClient).slidingCharge(keys.length, ...keys, String(limit), String(durationS), String(count))) as number[];
      return { admitted: r[0], cur: r[1], older: r.slice(2) };
    },
  };
}

export function subjectOf(actor: Actor): Subject {
  return actor.kind === 'tenant_key'
    ? { kind: 'key', id: actor.keyId, tenantId: actor.tenantId, livemode: actor.livemode }
    : { kind: 'session', id: actor.sessionId, tenantId: actor.tenantId, livemode: actor.livemode };
}

/**
 * The rate limiter of one process. Without Redis, counts live in this process's memory. With
 * Redis (its own ioredis client), every instance shares one count per subject and bucket; while
 * Redis is unreachable each instance falls back to an in-memory insurance limiter with the same
 * limits (so N instances admit at most N x the limit, never an open door) and goes back to Redis
 * as soon as the client reconnects.
 */
export class RateLimitService {
  private readonly window: SlidingWindow;
  private readonly redis: Redis | null;

  /** IP counters this instance has seen refused, until when: see `peek`. */
  private readonly blockedIps = new Map<string, number>();

  private constructor(
    private readonly overrides: RateLimitOverrides,
    store: RateLimiterAbstract,
    redis: Redis | null,
    private readonly clock: Clock,
    multiGet?: MultiGet,
    atomicCharge?: AtomicCharge,
  ) {
    this.redis = redis;
    this.window = new SlidingWindow(store, clock, multiGet, atomicCharge);
  }

  static create(overrides: RateLimitOverrides, logger: Logger, opts: RateLimitOptions = {}): RateLimitService {
    const clock = opts.clock ?? Date.now;
    const duration = STORE_DURATION_S;
    const memory = new RateLimiterMemory({ points: STORE_POINTS, duration, keyPrefix: 'rl' });
    if (!opts.redisUrl) return new RateLimitService(overrides, memory, null, clock);

    // Its own client: rate-limiter-flexible defines a Lua command on it. No offline queue and a
    // short command timeout, so an outage switches to the insurance limiter at once instead of
    // holding requests until Redis answers.
    const redis = new Redis(opts.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
      connectTimeout: 2000,
      enableAutoPipelining: true,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    let down = false;
    redis.on('error', (err: Error) => {
      if (!down) logger.warn({ err: err.message }, 'rate limiting: Redis unreachable, using the in-memory insurance limiter');
      down = true;
    });
    redis.on('ready', () => {
      if (down) logger.info('rate limiting: Redis is back, sharing counts again');
      down = false;
    });
    const keyPrefix = opts.keyPrefix ?? 'rl';
    const store = new RateLimiterRedis({ storeClient: redis, points: STORE_POINTS, duration, keyPrefix, rejectIfRedisNotReady: true, insuranceLimiter: memory });
    const { multiGet, atomicCharge } = redisWindowOps(redis, keyPrefix, duration);
    return new RateLimitService(overrides, store, redis, clock, multiGet, atomicCharge);
  }

  /** Charges one unit of `bucket` to `subject`; a refused request is not counted. */
  async charge(bucket: BucketName, subject: Subject): Promise<Decision> {
    const limit = await this.limitOf(bucket, subject);
    const d = this.decision(bucket, subject, await this.window.consume(counterId(bucket, subject), limit));
    if (!d.allowed && subject.kind === 'ip') this.rememberBlocked(counterId(bucket, subject), d.resetSeconds);
    return d;
  }

  private rememberBlocked(id: string, seconds: number): void {
    const now = this.clock();
    if (this.blockedIps.size >= 10_000) for (const [k, until] of this.blockedIps) if (until <= now) this.blockedIps.delete(k);
    if (this.blockedIps.size < 10_000) this.blockedIps.set(id, now + seconds * 1000);
  }

  /** Would one more unit pass? Charges nothing. */
  async peek(bucket: BucketName, subject: Subject): Promise<Decision> {
    const limit = await this.limitOf(bucket, subject);
    return this.decision(bucket, subject, await this.window.peek(counterId(bucket, subject), limit));
  }

  /**
   * Is this IP over the bucket's limit for bad credentials? Answered from this instance's memory of
   * its own refusals (no store round trip on every authenticated request); another instance's
   * refusals are learnt on this instance's first refused charge for that IP.
   */
  async peekIp(bucket: BucketName, ip: string): Promise<Decision | null> {
    const id = counterId(bucket, { kind: 'ip', ip });
    const until = this.blockedIps.get(id);
    if (until === undefined) return null;
    if (until <= this.clock()) {
      this.blockedIps.delete(id);
      return null;
    }
    const d = await this.peek(bucket, { kind: 'ip', ip });
    return d.allowed ? null : d;
  }

  /**
   * Charges one unit in each bucket, all or nothing: when one refuses, the units already taken
   * are given back. The returned decision is the refusal, or else the tightest bucket's state.
   */
  async chargeAll(buckets: readonly BucketName[], subject: Subject): Promise<Decision> {
    const taken: Decision[] = [];
    for (const bucket of buckets) {
      const d = await this.charge(bucket, subject);
      if (!d.allowed) {
        await Promise.all(taken.map((t) => this.window.refund(counterId(t.bucket, subject))));
        return d;
      }
      taken.push(d);
    }
    return taken.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  }

  /** Starting a GraphQL subscription costs one `verify_read` unit (D9). */
  async chargeSubscriptionStart(actor: Actor): Promise<Decision> {
    return this.charge('verify_read', subjectOf(actor));
  }

  async close(): Promise<void> {
    if (this.redis) this.redis.disconnect();
  }

  private limitOf(bucket: BucketName, subject: Subject): Promise<number> {
    return this.overrides.limitFor(subject.kind === 'key' || subject.kind === 'session' ? subject.tenantId : null, bucket);
  }

  private decision(bucket: BucketName, subject: Subject, state: WindowState): Decision {
    return { ...state, bucket, testMode: (subject.kind === 'key' || subject.kind === 'session') && !subject.livemode };
  }
}

function counterId(bucket: BucketName, s: Subject): string {
  switch (s.kind) {
    case 'key':
      return `${bucket}:key:${s.id}`;
    case 'session':
      return `${bucket}:ses:${s.id}`;
    case 'client':
      return `${bucket}:client:${s.id}`;
    case 'ip':
      return `${bucket}:ip:${s.ip}`;
  }
}


/**
 * The graphql-ws `beforeSubscribe` hook: each subscription start costs one `verify_read` unit of
 * the credential (D9); a refusal is a `rate_limited` error on that subscription, and the socket
 * stays open for the client to retry after the given seconds.
 */
export function subscriptionStartMeter(limits: RateLimitService): (ctx: { actor: Actor | null }) => Promise<void> {
  return async (ctx) => {
    if (!ctx.actor) return;
    const d = await limits.chargeSubscriptionStart(ctx.actor);
    if (!d.allowed) {
      throw new DomainError('rate_limited', `The verify_read bucket allows ${d.limit} requests per sliding 60 s window; retry after ${d.resetSeconds} s`);
    }
  };
}
