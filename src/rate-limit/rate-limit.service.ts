import { Redis } from 'ioredis';
import { NO_METRICS, type Metrics } from '../metrics/metrics';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Actor } from '../auth/actor';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import type { BucketName } from './buckets';
import { RateLimitOverrides } from './rate-limit-overrides';
import { RateLimiterSliceStore, RedisSliceStore, SliceStore, STORE_POINTS } from './slice-store';
import { SlidingWindow, STORE_DURATION_S, WindowState } from './sliding-window';
import { systemMillis, type MillisClock } from '../clock';

/** Who is counted (docs/rate-limits.md): a key (or a session's client_secret), an OAuth client, or a client IP. */
export type Subject =
  | { kind: 'key'; id: string; tenantId: string; livemode: boolean }
  | { kind: 'session'; id: string; tenantId: string; livemode: boolean }
  | { kind: 'client'; id: string }
  | { kind: 'user'; id: string }
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
  clock?: MillisClock;
  /** Where refusals are counted per bucket (docs/operations.md, "Metrics"). */
  metrics?: Pick<Metrics, 'rateLimitRefused'>;
};

export function subjectOf(actor: Actor): Subject {
  switch (actor.kind) {
    case 'end_user':
      return { kind: 'user', id: actor.userId }; // /v1/me is metered per user
    case 'tenant_key':
      return { kind: 'key', id: actor.keyId, tenantId: actor.tenantId, livemode: actor.livemode };
    case 'session_client':
      return { kind: 'session', id: actor.sessionId, tenantId: actor.tenantId, livemode: actor.livemode };
    case 'hosted_page':
      return { kind: 'session', ...actor.session }; // the page shares its session's count with the session's client_secret
  }
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

  private constructor(
    private readonly overrides: RateLimitOverrides,
    store: SliceStore,
    redis: Redis | null,
    clock: MillisClock,
    private readonly metrics: Pick<Metrics, 'rateLimitRefused'> = NO_METRICS,
  ) {
    this.redis = redis;
    this.window = new SlidingWindow(store, clock);
  }

  static create(overrides: RateLimitOverrides, logger: Logger, opts: RateLimitOptions = {}): RateLimitService {
    const clock = opts.clock ?? systemMillis;
    const duration = STORE_DURATION_S;
    const memory = new RateLimiterMemory({ points: STORE_POINTS, duration, keyPrefix: 'rl' });
    if (!opts.redisUrl) return new RateLimitService(overrides, new RateLimiterSliceStore(memory), null, clock, opts.metrics);

    // Its own client, which the slice store defines its Lua commands on. No offline queue, and a
    // deadline on every charge (RedisSliceStore, REDIS_DEADLINE_MS), so an outage switches to the
    // insurance limiter at once instead of holding requests until Redis answers. The client's own
    // command timeout is only a backstop that ends commands Redis never answers: it fires before
    // sockets are read, so a process stalled past it would count an answer already received as lost
    // and admit from the insurance limiter, past the limit the instances share.
    const redis = new Redis(opts.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 10_000,
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
    const store = new RedisSliceStore(redis, keyPrefix, duration, new RateLimiterSliceStore(memory));
    return new RateLimitService(overrides, store, redis, clock, opts.metrics);
  }

  /**
   * Charges one unit of `bucket` to `subject`; a refused request is not counted. When the instance
   * already holds units for the counter (see SlidingWindow) and the tenant's limits are cached,
   * which is most requests of a busy key, the decision is made synchronously and handed back as an
   * already-resolved promise: the fast path stays in here, and callers see one type.
   */
  charge(bucket: BucketName, subject: Subject): Promise<Decision> {
    const id = counterId(bucket, subject);
    const limit = this.overrides.cachedLimitFor(tenantOf(subject), bucket);
    if (limit === undefined) return this.chargeAfterLimit(bucket, subject, id);
    const state = this.window.consume(id, limit);
    return state instanceof Promise ? state.then((s) => this.decided(bucket, subject, s)) : Promise.resolve(this.decided(bucket, subject, state));
  }

  /** Every charge's decision passes here: a refusal is counted once, in the bucket that refused. */
  private decided(bucket: BucketName, subject: Subject, s: WindowState): Decision {
    if (!s.allowed) this.metrics.rateLimitRefused(bucket);
    return decisionOf(bucket, subject, s);
  }

  private async chargeAfterLimit(bucket: BucketName, subject: Subject, id: string): Promise<Decision> {
    const limit = await this.overrides.limitFor(tenantOf(subject), bucket);
    return this.decided(bucket, subject, await this.window.consume(id, limit));
  }

  /** Would one more unit pass? Charges nothing. */
  async peek(bucket: BucketName, subject: Subject): Promise<Decision> {
    const limit = await this.overrides.limitFor(tenantOf(subject), bucket);
    return decisionOf(bucket, subject, await this.window.peek(counterId(bucket, subject), limit));
  }

  /**
   * Charges one unit per entry (a bucket listed n times is charged n units), all or nothing: when
   * one refuses, the units already taken are given back. The returned decision is the refusal, or
   * else the tightest state seen.
   */
  chargeAll(buckets: readonly BucketName[], subject: Subject): Promise<Decision> {
    return buckets.length === 1 ? this.charge(buckets[0], subject) : this.chargeEach(buckets, subject);
  }

  private async chargeEach(buckets: readonly BucketName[], subject: Subject): Promise<Decision> {
    const taken: Decision[] = [];
    for (const bucket of buckets) {
      const d = await this.charge(bucket, subject);
      if (!d.allowed) {
        await Promise.all(taken.map((t) => this.window.refund(counterId(t.bucket, subject), t.slice)));
        return d;
      }
      taken.push(d);
    }
    return taken.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  }

  /** Starting a GraphQL subscription costs one `verify_read` unit (docs/rate-limits.md). */
  chargeSubscriptionStart(actor: Actor): Promise<Decision> {
    return this.charge('verify_read', subjectOf(actor));
  }

  async close(): Promise<void> {
    await this.window.close();
    if (this.redis) this.redis.disconnect();
  }

}

/** The tenant whose overrides apply: a key's or a session's; none for a client or an IP. */
const tenantOf = (subject: Subject): string | null => (subject.kind === 'key' || subject.kind === 'session' ? subject.tenantId : null);

function decisionOf(bucket: BucketName, subject: Subject, s: WindowState): Decision {
  // Spelt out rather than spread: this runs on every metered request.
  return {
    allowed: s.allowed,
    limit: s.limit,
    used: s.used,
    remaining: s.remaining,
    resetSeconds: s.resetSeconds,
    slice: s.slice,
    bucket,
    testMode: (subject.kind === 'key' || subject.kind === 'session') && !subject.livemode,
  };
}

function counterId(bucket: BucketName, s: Subject): string {
  switch (s.kind) {
    case 'key':
      return `${bucket}:key:${s.id}`;
    case 'session':
      return `${bucket}:ses:${s.id}`;
    case 'client':
      return `${bucket}:client:${s.id}`;
    case 'user':
      return `${bucket}:usr:${s.id}`;
    case 'ip':
      return `${bucket}:ip:${s.ip}`;
  }
}


/**
 * The graphql-ws `beforeSubscribe` hook: each subscription start costs one `verify_read` unit of
 * the credential (docs/rate-limits.md); a refusal is a `rate_limited` error on that subscription, and the socket
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
