import { WINDOW_SECONDS } from './buckets';
import type { ChargeResult, SliceStore } from './slice-store';
import { systemMillis, type MillisClock } from '../clock';

const WINDOW_MS = WINDOW_SECONDS * 1000;

/** Milliseconds since the epoch; injected so tests can walk across window boundaries without sleeping. */

/** A value, or a promise of it when it had to wait for the store. */
export type MaybePromise<T> = T | Promise<T>;

/** The state of one counter after a request was (or was not) admitted. */
export type WindowState = {
  allowed: boolean;
  limit: number;
  /** Requests counted in the window (the last 60 to 65 s), including this one when admitted. */
  used: number;
  remaining: number;
  /** Whole seconds until one more request would pass; 0 while some remain. */
  resetSeconds: number;
  /** The 5 s slice the unit was charged to: a refund goes back there. */
  slice: number;
};

/** Sub-window length: counts are kept per 5 s slice, and a decision reads the last 13 slices. */
export const SLICE_MS = 5000;
const SLICES = WINDOW_MS / SLICE_MS;
/** Store TTL in seconds: a slice must stay readable while it is counted (60 s + one slice), plus margin. */
export const STORE_DURATION_S = WINDOW_SECONDS + (2 * SLICE_MS) / 1000;

/** A lease is sized to cover about this much of the instance's recent demand on the counter. */
export const LEASE_HORIZON_MS = 100;
/** Smaller leases are not worth a reservation: below this a counter charges the store per request. */
export const LEASE_MIN_UNITS = 2;
/** Leased units unused after this long (or at the end of their slice, if sooner) are given back. */
export const LEASE_TTL_MS = 1000;
/** When a lease is down to this share of its last grant, the next units are fetched while it lasts. */
const REFILL_SHARE = 0.25;

type Waiter = { now: number; slice: number; limit: number; resolve(state: WindowState): void; reject(err: unknown): void };

/** Units the store has counted for this instance in one slice and that it may admit locally. */
type Lease = {
  slice: number;
  limit: number;
  units: number;
  /** Below this many units a refill is fetched ahead of need. */
  refillAt: number;
  expiresAt: number;
  older: number[];
  olderSum: number;
  /** The slice's count at the store after the charge that granted the lease, leased units included. */
  cur: number;
  timer: NodeJS.Timeout | null;
};

/** What one instance knows of one counter. */
class Counter {
  lease: Lease | null = null;
  readonly queue: Waiter[] = [];
  /** A pump is scheduled or its charge is in flight: one at a time per counter. */
  busy = false;
  /** This instance's requests in the slice `demandSlice` and the one before: the lease size follows them. */
  demandSlice = 0;
  demandCur = 0;
  demandPrev = 0;

  noteDemand(slice: number): void {
    if (slice === this.demandSlice) {
      this.demandCur++;
      return;
    }
    this.demandPrev = slice === this.demandSlice + 1 ? this.demandCur : 0;
    this.demandCur = 1;
    this.demandSlice = slice;
  }

  /** Units worth leasing: the requests of the last LEASE_HORIZON_MS at the rate seen over the last 5 to 10 s. */
  leaseWanted(now: number): number {
    const span = SLICE_MS + (now - this.demandSlice * SLICE_MS);
    const units = Math.floor(((this.demandPrev + this.demandCur) * LEASE_HORIZON_MS) / span);
    return units >= LEASE_MIN_UNITS ? units : 0;
  }

  usableLease(now: number, limit: number): Lease | null {
    const l = this.lease;
    return l !== null && l.units > 0 && l.limit === limit && now < l.expiresAt ? l : null;
  }
}

/**
 * A sliding 60 s window kept as 5 s slices under `${id}:${floor(now / 5 s)}` in a SliceStore
 * (memory, or Redis shared by every instance; both are rate-limiter-flexible's key format, since
 * rate-limiter-flexible itself only has fixed windows). A decision counts the current slice and
 * the 12 before it, whole: they cover the last 60 to 65 s, so every 60 s window ending at an
 * admitted request holds at most the limit. (The weighted two-window counter, docs/rate-limits.md "How the window works", was
 * measured at 691 admits in a 60 s window for a limit of 600 by `npm run bench:rate-limit`: it
 * assumes the previous minute's requests were spread evenly, and a burst inside it breaks that.)
 * The price is that a slice's requests are released up to 5 s late.
 *
 * Every unit is counted at the store before a request is admitted, so the admitted total of all
 * instances never passes the limit, and refused requests are not counted. What makes it cheap:
 * - One charge at a time per counter: the requests of one counter that arrive while its charge is
 *   in flight (or in the same turn of the event loop) go to the store together, in one call.
 * - Leases: a counter this instance sees often (LEASE_MIN_UNITS in LEASE_HORIZON_MS at its recent
 *   rate) reserves the units its next ~100 ms of requests will need in the same call, and admits
 *   them locally. Leased units are counted in the current slice from the start and are only used
 *   in that slice, so the bound above holds; a lease takes at most a quarter of the room left,
 *   so near the limit every unit goes to the store alone; what is unused after LEASE_TTL_MS or at
 *   the slice's end is given back.
 */
export class SlidingWindow {
  private readonly counters = new Map<string, Counter>();
  private sweptSlice = 0;

  constructor(
    private readonly store: SliceStore,
    private readonly clock: MillisClock = systemMillis,
  ) {}

  /**
   * Charges one unit; each caller gets the state it would have seen alone, in arrival order. A unit
   * from the instance's lease is answered at once, without a promise.
   */
  consume(id: string, limit: number): MaybePromise<WindowState> {
    const now = this.clock();
    const slice = Math.floor(now / SLICE_MS);
    if (slice !== this.sweptSlice) this.sweep(slice, now);
    let c = this.counters.get(id);
    if (c === undefined) {
      c = new Counter();
      this.counters.set(id, c);
    }
    c.noteDemand(slice);
    const lease = c.queue.length === 0 ? c.usableLease(now, limit) : null;
    if (lease !== null) {
      lease.units--;
      if (lease.units <= lease.refillAt) this.schedulePump(id, c);
      return leaseState(lease, now);
    }
    const counter = c;
    return new Promise<WindowState>((resolve, reject) => {
      counter.queue.push({ now, slice, limit, resolve, reject });
      this.schedulePump(id, counter);
    });
  }

  /** Runs the counter's pump after this turn of the event loop, so that turn's arrivals share one charge. */
  private schedulePump(id: string, c: Counter): void {
    if (c.busy) return;
    c.busy = true;
    setImmediate(() => void this.pump(id, c));
  }

  /** The state without charging: would one more request pass now? Leased units count as used. */
  async peek(id: string, limit: number): Promise<WindowState> {
    const now = this.clock();
    const slice = Math.floor(now / SLICE_MS);
    const counts = await this.store.read(sliceIds(id, slice));
    const older = counts.slice(0, SLICES);
    const olderSum = sum(older);
    const cur = counts[SLICES];
    return stateOf(olderSum + cur + 1 <= limit, olderSum, older, cur, slice, now, limit);
  }

  /** Gives back a unit charged in `slice` (a multi-bucket GraphQL operation refused by another bucket). */
  async refund(id: string, slice: number): Promise<void> {
    const lease = this.counters.get(id)?.lease;
    if (lease && lease.slice === slice && this.clock() < lease.expiresAt) {
      lease.units++;
      return;
    }
    await this.store.giveBack(`${id}:${slice}`, 1);
  }

  /** Gives back every unused lease (an instance shutting down), so other instances can use the units. */
  async close(): Promise<void> {
    const giveBacks: Promise<void>[] = [];
    for (const [id, c] of this.counters) if (c.lease) giveBacks.push(this.release(id, c, c.lease));
    await Promise.all(giveBacks);
  }

  /**
   * The counter's one line to the store: charges for the requests waiting (with a lease when the
   * counter is busy), then, with no one waiting, tops up a lease running low so that requests
   * keep being admitted locally while the next units are on their way.
   */
  private async pump(id: string, c: Counter): Promise<void> {
    // A refill the store refused is not asked again in this pump, but requests that queued meanwhile are served.
    let refillRefused = false;
    for (;;) {
      this.serveFromLease(c);
      const now = this.clock();
      if (c.queue.length > 0) {
        await this.chargeWaiting(id, c, now);
        continue;
      }
      const l = c.lease;
      if (refillRefused || l === null || l.units > l.refillAt || now >= l.expiresAt) break;
      const wanted = c.leaseWanted(now);
      if (wanted === 0 || !(await this.refill(id, c, l, wanted))) refillRefused = true;
    }
    if (c.lease !== null && this.clock() >= c.lease.expiresAt) void this.release(id, c, c.lease);
    c.busy = false;
  }

  private async chargeWaiting(id: string, c: Counter, now: number): Promise<void> {
    const { slice, limit } = c.queue[0];
    let n = 1;
    while (n < c.queue.length && c.queue[n].slice === slice && c.queue[n].limit === limit) n++;
    const group = c.queue.splice(0, n);
    const giveBack = this.takeUnused(c, slice);
    // A lease only for requests of the slice now running: it is usable in that slice only.
    const lease = slice === Math.floor(now / SLICE_MS) ? c.leaseWanted(now) : 0;
    let r: ChargeResult;
    try {
      r = await this.store.charge({ ids: sliceIds(id, slice), limit, want: group.length, lease, giveBack });
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    const olderSum = sum(r.older);
    const before = r.cur - r.leased - r.admitted;
    group.forEach((w, i) => {
      const allowed = i < r.admitted;
      w.resolve(stateOf(allowed, olderSum, r.older, allowed ? before + i + 1 : r.cur, slice, w.now, limit));
    });
    if (r.leased > 0) this.grant(id, c, r, slice, limit, now);
  }

  /** Fetches more units for the lease `l` before it runs out; false when the store had none to spare. */
  private async refill(id: string, c: Counter, l: Lease, wanted: number): Promise<boolean> {
    let r: ChargeResult;
    try {
      r = await this.store.charge({ ids: sliceIds(id, l.slice), limit: l.limit, want: 0, lease: wanted });
    } catch {
      return false;
    }
    if (r.leased === 0) return false;
    if (c.lease !== l) {
      // Given back meanwhile (shutdown): so are these.
      void this.store.giveBack(`${id}:${l.slice}`, r.leased).catch(() => undefined);
      return false;
    }
    // Past its slice by now, the lease has expired, and the pump gives all of it back when done.
    l.units += r.leased;
    this.extend(id, c, l, r, this.clock());
    return true;
  }

  /** Admits queued requests from the lease, in order, while it lasts. */
  private serveFromLease(c: Counter): void {
    const l = c.lease;
    if (l === null) return;
    const now = this.clock();
    while (c.queue.length > 0 && l.units > 0 && now < l.expiresAt && c.queue[0].slice === l.slice && c.queue[0].limit === l.limit) {
      const w = c.queue.shift()!;
      l.units--;
      w.resolve(leaseState(l, w.now));
    }
  }

  private grant(id: string, c: Counter, r: ChargeResult, slice: number, limit: number, now: number): void {
    const lease: Lease = { slice, limit, units: r.leased, refillAt: 0, expiresAt: 0, older: r.older, olderSum: 0, cur: r.cur, timer: null };
    c.lease = lease;
    this.extend(id, c, lease, r, now);
  }

  /** Takes the store's latest counts into the lease, and restarts its time to live from `now`. */
  private extend(id: string, c: Counter, l: Lease, r: ChargeResult, now: number): void {
    l.older = r.older;
    l.olderSum = sum(r.older);
    l.cur = r.cur;
    l.refillAt = Math.floor(r.leased * REFILL_SHARE);
    l.expiresAt = Math.min((l.slice + 1) * SLICE_MS, now + LEASE_TTL_MS);
    if (l.timer) clearTimeout(l.timer);
    l.timer = setTimeout(() => this.expire(id, c, l), Math.max(0, l.expiresAt - now));
    l.timer.unref();
  }

  /** A lease's time is up: its unused units go back, unless the pump is running and will see to them. */
  private expire(id: string, c: Counter, lease: Lease): void {
    if (c.lease === lease && !c.busy) void this.release(id, c, lease);
  }

  /** Ends the lease and gives its unused units back (a slice the store no longer holds is left alone). */
  private release(id: string, c: Counter, lease: Lease): Promise<void> {
    c.lease = null;
    if (lease.timer) clearTimeout(lease.timer);
    return lease.units > 0 ? this.store.giveBack(`${id}:${lease.slice}`, lease.units).catch(() => undefined) : Promise.resolve();
  }

  /** Ends the counter's lease before a charge; its unused units, if their slice still counts, ride along to be given back. */
  private takeUnused(c: Counter, slice: number): { index: number; units: number } | undefined {
    const l = c.lease;
    if (l === null) return undefined;
    c.lease = null;
    if (l.timer) clearTimeout(l.timer);
    const index = l.slice - (slice - SLICES);
    return l.units > 0 && index >= 0 && index <= SLICES ? { index, units: l.units } : undefined;
  }

  /** Once per slice: gives back leases that ran out meanwhile and forgets idle counters. */
  private sweep(slice: number, now: number): void {
    this.sweptSlice = slice;
    for (const [id, c] of this.counters) {
      if (c.busy) continue;
      if (c.lease && now >= c.lease.expiresAt) this.expire(id, c, c.lease);
      if (c.lease === null && c.demandSlice < slice - 1) this.counters.delete(id);
    }
  }
}

/** The 12 older slices of `id`, oldest first, then `slice` itself. */
function sliceIds(id: string, slice: number): string[] {
  const ids = new Array<string>(SLICES + 1);
  for (let i = 0; i <= SLICES; i++) ids[i] = `${id}:${slice - SLICES + i}`;
  return ids;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** The state of a request admitted from the lease: the lease's unused units are still this key's room. */
function leaseState(l: Lease, now: number): WindowState {
  return stateOf(true, l.olderSum, l.older, l.cur - l.units, l.slice, now, l.limit);
}

function stateOf(allowed: boolean, olderSum: number, older: readonly number[], cur: number, slice: number, now: number, limit: number): WindowState {
  const used = olderSum + cur;
  const remaining = Math.max(0, limit - used);
  const resetSeconds = remaining > 0 ? 0 : Math.max(1, Math.ceil(msUntilNext(older, cur, slice, now, limit) / 1000));
  return { allowed, limit, used, remaining, resetSeconds, slice };
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
