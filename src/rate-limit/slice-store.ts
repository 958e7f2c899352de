import type { Redis } from 'ioredis';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { withinDeadline } from './deadline';

/**
 * A lease takes at most this share of the room a counter has left after the request's own units
 * (1/4): as a counter fills, leases shrink, and near its limit every unit goes to the store alone.
 */
export const LEASE_ROOM_DIVISOR = 4;

/** Points large enough that a rate-limiter-flexible store never refuses by itself: admission is decided here. */
export const STORE_POINTS = 1_000_000_000;

export type ChargeRequest = {
  /** The counter's 12 older slices, oldest first, then its current slice (13 ids). */
  ids: readonly string[];
  limit: number;
  /** Units the waiting requests need; admitted as far as they fit under `limit`. */
  want: number;
  /** Extra units to reserve for this instance, granted only out of a share of the room left. */
  lease: number;
  /** Unused units of an earlier lease, given back before anything is read: an index into `ids`. */
  giveBack?: { index: number; units: number };
};

export type ChargeResult = {
  /** Units of `want` admitted (the first `admitted` waiters pass). */
  admitted: number;
  /** Units reserved beyond `want`, counted in the current slice already. */
  leased: number;
  /** The current slice's count after the charge, leased units included. */
  cur: number;
  /** The 12 older slices' counts, oldest first. */
  older: number[];
};

/**
 * Where the slice counts of the sliding window live: this process's memory, or Redis shared by
 * every instance. A charge is atomic per counter: no other charge of the same counter can fall
 * between its read of the window and its increment.
 */
export interface SliceStore {
  charge(req: ChargeRequest): Promise<ChargeResult>;
  /** The counts of these slices; a slice never charged is 0. */
  read(ids: readonly string[]): Promise<number[]>;
  /** Uncounts units of one slice that were charged but not used; never below zero. */
  giveBack(id: string, units: number): Promise<void>;
}

/**
 * The window over a rate-limiter-flexible store (its Memory store: one process's counts, and the
 * insurance of a Redis store; or its Redis store, which the unit tests also run it on). Its operations
 * are separate calls, so it is atomic only for one caller at a time per counter: the sliding window
 * sends one charge per counter at a time. Across instances on Redis the increment itself is atomic
 * and each charge sees its own position, so the admitted total still never passes the limit; a
 * concurrent give-back only makes it stricter.
 */
export class RateLimiterSliceStore implements SliceStore {
  constructor(private readonly store: RateLimiterAbstract) {}

  async charge({ ids, limit, want, lease, giveBack }: ChargeRequest): Promise<ChargeResult> {
    if (giveBack) await this.giveBack(ids[giveBack.index], giveBack.units);
    const current = ids[ids.length - 1];
    const units = want + lease;
    const [older, charged] = await Promise.all([this.read(ids.slice(0, -1)), this.store.consume(current, units).catch(rethrowUnlessRes)]);
    let cur = charged.consumedPoints;
    const room = Math.max(0, limit - sum(older) - (cur - units));
    const admitted = Math.min(want, room);
    const leased = Math.min(lease, Math.floor((room - admitted) / LEASE_ROOM_DIVISOR));
    const excess = units - admitted - leased;
    if (excess > 0) {
      await this.store.reward(current, excess);
      cur -= excess;
    }
    return { admitted, leased, cur, older };
  }

  async read(ids: readonly string[]): Promise<number[]> {
    const rs = await Promise.all(ids.map((k) => this.store.get(k)));
    return rs.map((r) => r?.consumedPoints ?? 0);
  }

  async giveBack(id: string, units: number): Promise<void> {
    // Read first: rewarding a slice the store no longer holds (expired, or never in the insurance
    // limiter) would create it with a negative count.
    const held = (await this.store.get(id))?.consumedPoints ?? 0;
    const n = Math.min(held, units);
    if (n > 0) await this.store.reward(id, n);
  }
}

function rethrowUnlessRes(err: unknown): RateLimiterRes {
  // With STORE_POINTS the store never refuses, so a RateLimiterRes here still carries the count.
  if (err && typeof err === 'object' && 'consumedPoints' in err) return err as RateLimiterRes;
  throw err;
}

/**
 * KEYS: the 12 older slices, then the current one. ARGV: limit, TTL (s), units wanted, units to
 * lease, lease room divisor, index (1-based) of a slice to give units back to or 0, units to give
 * back. Gives back, reads, then admits as many units as fit and leases what it may, in one atomic
 * step. Returns {admitted, leased, current after, older...}. Values are plain integers with a TTL,
 * the format of rate-limiter-flexible's keys.
 */
const CHARGE_LUA = `
local n = #KEYS
local gi = tonumber(ARGV[6])
if gi > 0 then
  local held = tonumber(redis.call('GET', KEYS[gi]))
  if held and held > 0 then redis.call('DECRBY', KEYS[gi], math.min(held, tonumber(ARGV[7]))) end
end
local vals = redis.call('MGET', unpack(KEYS))
local out = {0, 0, 0}
local total = 0
for i = 1, n - 1 do
  local v = tonumber(vals[i]) or 0
  out[i + 3] = v
  total = total + v
end
local cur = tonumber(vals[n]) or 0
local room = math.max(0, tonumber(ARGV[1]) - total - cur)
local take = math.min(tonumber(ARGV[3]), room)
local extra = math.min(tonumber(ARGV[4]), math.floor((room - take) / tonumber(ARGV[5])))
if take + extra > 0 then
  redis.call('SET', KEYS[n], 0, 'EX', ARGV[2], 'NX')
  cur = redis.call('INCRBY', KEYS[n], take + extra)
end
out[1] = take
out[2] = extra
out[3] = cur
return out`;

const GIVE_BACK_LUA = `
local held = tonumber(redis.call('GET', KEYS[1]))
if held and held > 0 then redis.call('DECRBY', KEYS[1], math.min(held, tonumber(ARGV[1]))) end
return 0`;

type ScriptClient = {
  slidingCharge(numKeys: number, ...args: string[]): Promise<number[]>;
  slidingGiveBack(numKeys: number, ...args: string[]): Promise<unknown>;
};

/** How long a charge or read waits for Redis before the insurance limiter answers it. */
const REDIS_DEADLINE_MS = 500;

/**
 * The window on Redis, shared by every instance: each charge is one Lua script call. When Redis
 * is unreachable, or has not answered within REDIS_DEADLINE_MS (judged so that a process stalled past it
 * still takes an answer that has arrived: src/rate-limit/deadline.ts), charges and reads go to
 * `fallback` (the in-memory insurance limiter) until the client is ready again.
 */
export class RedisSliceStore implements SliceStore {
  private readonly scripts: ScriptClient;

  constructor(
    private readonly redis: Redis,
    /** rate-limiter-flexible's key prefix: its keys are `${prefix}:${id}`. */
    private readonly keyPrefix: string,
    private readonly ttlSeconds: number,
    private readonly fallback: SliceStore,
  ) {
    redis.defineCommand('slidingCharge', { lua: CHARGE_LUA });
    redis.defineCommand('slidingGiveBack', { lua: GIVE_BACK_LUA });
    this.scripts = redis as unknown as ScriptClient;
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    if (this.redis.status !== 'ready') return this.fallback.charge(req);
    let r: number[];
    try {
      const keys = req.ids.map((k) => `${this.keyPrefix}:${k}`);
      const gb = req.giveBack;
      r = await withinDeadline(
        this.scripts.slidingCharge(
          keys.length,
          ...keys,
          String(req.limit),
          String(this.ttlSeconds),
          String(req.want),
          String(req.lease),
          String(LEASE_ROOM_DIVISOR),
          String(gb ? gb.index + 1 : 0),
          String(gb ? gb.units : 0),
        ),
        REDIS_DEADLINE_MS,
      );
    } catch {
      return this.fallback.charge(req);
    }
    return { admitted: r[0], leased: r[1], cur: r[2], older: r.slice(3) };
  }

  async read(ids: readonly string[]): Promise<number[]> {
    if (this.redis.status === 'ready') {
      try {
        const values = await withinDeadline(this.redis.mget(ids.map((k) => `${this.keyPrefix}:${k}`)), REDIS_DEADLINE_MS);
        return values.map((v) => (v === null ? 0 : Number.parseInt(v, 10)));
      } catch {
        // Unreachable or slow: the insurance limiter's counts answer.
      }
    }
    return this.fallback.read(ids);
  }

  async giveBack(id: string, units: number): Promise<void> {
    // Units leased from Redis live in Redis; while it is down they stay counted there, which
    // errs on the strict side, and the insurance limiter never held them.
    if (this.redis.status !== 'ready') return;
    await withinDeadline(this.scripts.slidingGiveBack(1, `${this.keyPrefix}:${id}`, String(units)), REDIS_DEADLINE_MS).catch(() => undefined);
  }
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
