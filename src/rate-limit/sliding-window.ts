import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { WINDOW_SECONDS } from './buckets';

const WINDOW_MS = WINDOW_SECONDS * 1000;

/** Milliseconds since the epoch; injected so tests can walk across window boundaries without sleeping. */
export type Clock = () => number;

/** The state of one counter after a request was (or was not) admitted. */
export type WindowState = {
  allowed: boolean;
  limit: number;
  /** Requests counted in the window (the last 60 to 65 s), including this one when admitted. */
  used: number;
  remaining: number;
  /** Whole seconds until one more request would pass; 0 while some remain. */
  resetSeconds: number;
};

/** Sub-window length: counts are kept per 5 s slice, and a decision reads the last 13 slices. */
export const SLICE_MS = 5000;
const SLICES = WINDOW_MS / SLICE_MS;
/** Store TTL in seconds: a slice must stay readable while it is counted (60 s + one slice), plus margin. */
export const STORE_DURATION_S = WINDOW_SECONDS + (2 * SLICE_MS) / 1000;

/**
 * A sliding 60 s window over a rate-limiter-flexible store (which only has fixed windows), kept
 * as 5 s slices under `${id}:${floor(now / 5 s)}`. A decision counts the current slice and the 12
 * before it, whole: they cover the last 60 to 65 s, so every 60 s window ending at an admitted
 * request holds at most the limit. (The weighted two-window counter of STACK.md was measured at
 * 691 admits in a 60 s window for a limit of 600 by `npm run bench:rate-limit`: it assumes the
 * previous minute's requests were spread evenly, and a burst inside it breaks that.) The price is
 * that a slice's requests are released up to 5 s late.
 *
 * Admission is decided after an atomic increment of the current slice and undone (`reward`)
 * when refused, so concurrent requests on several instances each see a distinct count and the
 * admitted total never passes the limit; refused requests do not use up the window.
 */
/** Reads several counters in one round trip (Redis MGET); a failure falls back to the store's own reads. */
export type MultiGet = (ids: string[]) => Promise<number[]>;

/**
 * Reads the 12 older slices and charges the current one (the last id) with as many of `count`
 * units as fit under `limit`, in one atomic step (a Redis Lua script), so no other instance's
 * increment can fall between the read and the decision. `cur` is the current slice after it.
 */
export type AtomicCharge = (ids: string[], limit: number, count: number) => Promise<{ admitted: number; older: number[]; cur: number }>;

type Waiter = { now: number; resolve(state: WindowState): void; fallback(): void };
type Batch = { id: string; slice: number; limit: number; waiters: Waiter[] };

export class SlidingWindow {
  /** Charges of one counter waiting for this turn of the event loop to end; see `consume`. */
  private readonly batches = new Map<string, Batch>();

  constructor(
    private readonly store: RateLimiterAbstract,
    private readonly clock: Clock = Date.now,
    private readonly multiGet?: MultiGet,
    private readonly atomicCharge?: AtomicCharge,
  ) {}

  /**
   * Charges one unit. With an atomic store (Redis), the charges of one counter that arrive in the
   * same turn of the event loop go to the store as one script call for all of them: a busy key's
   * concurrent requests then cost one round trip, not one each. Each waiter still gets the state it
   * would have seen alone, in arrival order, and the store admits only what fits, so the count stays exact.
   */
  consume(id: string, limit: number): Promise<WindowState> {
    const now = this.clock();
    if (!this.atomicCharge) return this.consumeFromStore(id, limit, now);
    const slice = Math.floor(now / SLICE_MS);
    return new Promise<WindowState>((resolve, reject) => {
      const batchKey = `${id}:${slice}:${limit}`;
      let batch = this.batches.get(batchKey);
      if (!batch) {
        batch = { id, slice, limit, waiters: [] };
        this.batches.set(batchKey, batch);
        const scheduled = batch;
        setImmediate(() => {
          this.batches.delete(batchKey);
          void this.flush(scheduled);
        });
      }
      batch.waiters.push({ now, resolve, fallback: () => this.consumeFromStore(id, limit, now).then(resolve, reject) });
    });
  }

  private async flush(batch: Batch): Promise<void> {
    const { id, slice, limit, waiters } = batch;
    let r: Awaited<ReturnType<AtomicCharge>>;
    try {
      const ids = Array.from({ length: SLICES + 1 }, (_, i) => `${id}:${slice - SLICES + i}`);
      r = await this.atomicCharge!(ids, limit, waiters.length);
    } catch {
      // Redis unreachable: each charge goes through the store, whose operations use its insurance limiter.
      for (const w of waiters) w.fallback();
      return;
    }
    const before = r.cur - r.admitted;
    waiters.forEach((w, i) => {
      const allowed = i < r.admitted;
      w.resolve(stateOf(allowed, r.older, allowed ? before + i + 1 : r.cur, slice, w.now, limit));
    });
  }

  private async consumeFromStore(id: string, limit: number, now: number): Promise<WindowState> {
    const slice = Math.floor(now / SLICE_MS);
    const currentKey = `${id}:${slice}`;
    const [older, curRes] = await Promise.all([this.olderCounts(id, slice), this.store.consume(currentKey, 1).catch(rethrowUnlessRes)]);
    let cur = curRes.consumedPoints;
    const allowed = sum(older) + cur <= limit;
    if (!allowed) {
      await this.store.reward(currentKey, 1);
      cur -= 1;
    }
    return stateOf(allowed, older, cur, slice, now, limit);
  }

  /** The state without charging: would one more request pass now? */
  async peek(id: string, limit: number): Promise<WindowState> {
    const now = this.clock();
    const slice = Math.floor(now / SLICE_MS);
    const [older, curRes] = await Promise.all([this.olderCounts(id, slice), this.store.get(`${id}:${slice}`)]);
    const cur = curRes?.consumedPoints ?? 0;
    return stateOf(sum(older) + cur + 1 <= limit, older, cur, slice, now, limit);
  }

  /** Gives back a unit charged in this slice (a multi-bucket GraphQL operation refused by another bucket). */
  async refund(id: string): Promise<void> {
    await this.store.reward(`${id}:${Math.floor(this.clock() / SLICE_MS)}`, 1);
  }

  /** Counts of the 12 slices before `slice`, oldest first. */
  private async olderCounts(id: string, slice: number): Promise<number[]> {
    const ids = Array.from({ length: SLICES }, (_, i) => `${id}:${slice - SLICES + i}`);
    if (this.multiGet) {
      try {
        return await this.multiGet(ids);
      } catch {
        // Redis unreachable: the store's reads go to its insurance limiter.
      }
    }
    const rs = await Promise.all(ids.map((k) => this.store.get(k)));
    return rs.map((r) => r?.consumedPoints ?? 0);
  }
}

/** Points large enough that the store never refuses by itself: admission is decided here. */
export const STORE_POINTS = 1_000_000_000;

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function stateOf(allowed: boolean, older: readonly number[], cur: number, slice: number, now: number, limit: number): WindowState {
  const used = sum(older) + cur;
  const remaining = Math.max(0, limit - used);
  const resetSeconds = remaining > 0 ? 0 : Math.max(1, Math.ceil(msUntilNext(older, cur, slice, now, limit) / 1000));
  return { allowed, limit, used, remaining, resetSeconds };
}

/**
 * How long until one more request would pass: slice `j` stops counting at `(j + 13) * 5 s`, so
 * the oldest slices drop out first until the count leaves room.
 */
export function msUntilNext(older: readonly number[], cur: number, slice: number, now: number, limit: number): number {
  let total = sum(older) + cur;
  if (total + 1 <= limit) return 0;
  for (let i = 0; i < older.length; i++) {
    total -= older[i];
    if (total + 1 <= limit) return Math.max(0, (slice + i + 1) * SLICE_MS - now);
  }
  return (slice + SLICES + 1) * SLICE_MS - now;
}

function rethrowUnlessRes(err: unknown): RateLimiterRes {
  // With STORE_POINTS the store never refuses, so a RateLimiterRes here still carries the count.
  if (err && typeof err === 'object' && 'consumedPoints' in err) return err as RateLimiterRes;
  throw err;
}
