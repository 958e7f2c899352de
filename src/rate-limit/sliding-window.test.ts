import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { RateLimiterSliceStore, RedisSliceStore, SliceStore, STORE_POINTS } from './slice-store';
import { LEASE_TTL_MS, msUntilNext, SlidingWindow, STORE_DURATION_S } from './sliding-window';

/** The Redis cases run against the Redis of REDIS_URL (CI's second pass); without it they are skipped. */
const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.info('sliding-window: the Redis store cases are skipped (REDIS_URL is not set)');
const MINUTE = 60_000;

/** A clock the test moves by hand, starting at a window boundary. */
function manualClock() {
  let t = 1_000 * MINUTE;
  return { now: () => t, set: (msIntoRun: number) => (t = 1_000 * MINUTE + msIntoRun) };
}

const redisClients: Redis[] = [];
afterAll(() => redisClients.forEach((r) => r.disconnect()));

const redisClient = () => {
  const client = new Redis(REDIS_URL!, { lazyConnect: false });
  redisClients.push(client);
  return client;
};
/** Resolves once every Redis client made so far has connected (commands before that would queue anyway). */
const redisReady = () =>
  Promise.all(redisClients.map((c) => (c.status === 'ready' ? undefined : new Promise((resolve, reject) => c.once('ready', resolve).once('error', reject)))));
const memoryStore = () => new RateLimiterSliceStore(new RateLimiterMemory({ points: STORE_POINTS, duration: STORE_DURATION_S, keyPrefix: 'rl-unit' }));
const redisStore = () => {
  const client = redisClient();
  const keyPrefix = `rl-unit-${randomBytes(6).toString('hex')}`;
  const rlf = new RateLimiterRedis({ storeClient: client, points: STORE_POINTS, duration: STORE_DURATION_S, keyPrefix });
  return new RedisSliceStore(client, keyPrefix, STORE_DURATION_S, new RateLimiterSliceStore(rlf));
};

const stores: [string, () => SliceStore][] = [['the Memory store', memoryStore]];
if (REDIS_URL)
  stores.push(
    [
    "rate-limiter-flexible's Redis store (the path while the script is unavailable)",
    () => new RateLimiterSliceStore(new RateLimiterRedis({ storeClient: redisClient(), points: STORE_POINTS, duration: STORE_DURATION_S, keyPrefix: `rl-unit-${randomBytes(6).toString('hex')}` })),
  ],
    ['the Redis store with the atomic script, as the server uses it', redisStore],
  );

async function admitted(w: SlidingWindow, id: string, limit: number, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await w.consume(id, limit)).allowed) ok++;
  return ok;
}

describe.each(stores)('the sliding window over %s', (_name, makeStore) => {
  let store: SliceStore;
  beforeAll(async () => {
    store = makeStore();
    await redisReady();
  });
  const windowOf = (clock: () => number) => new SlidingWindow(store, clock);

  it('admits exactly the limit in one window, then refuses with a whole-second reset', async () => {
    const clock = manualClock();
    const w = windowOf(clock.now);
    clock.set(10_000);
    const results = [];
    for (let i = 0; i < 12; i++) results.push(await w.consume('exact', 10));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(results[9]).toMatchObject({ allowed: true, remaining: 0, limit: 10 });
    expect(results[0]).toMatchObject({ remaining: 9, resetSeconds: 0 });
    const refused = results[11];
    expect(refused.allowed).toBe(false);
    // All 10 sit in the 5 s slice starting at 10 s, which counts until 75 s: 65 s from now.
    expect(refused.resetSeconds).toBe(65);
    expect(Number.isInteger(refused.resetSeconds)).toBe(true);
  });

  it('does not let a burst at the end of one minute and the start of the next pass twice the limit', async () => {
    const clock = manualClock();
    const w = windowOf(clock.now);
    clock.set(59_500);
    const first = await admitted(w, 'boundary', 60, 100);
    clock.set(60_500);
    const second = await admitted(w, 'boundary', 60, 100);
    expect(first).toBe(60);
    expect(first + second).toBe(60); // a fixed window would have admitted 120
  });

  it('frees capacity as the previous window slides out', async () => {
    const clock = manualClock();
    const w = windowOf(clock.now);
    clock.set(0);
    expect(await admitted(w, 'slide', 60, 30)).toBe(30);
    clock.set(20_000);
    expect(await admitted(w, 'slide', 60, 30)).toBe(30);
    clock.set(59_999); // all 60 are within the last 60 s
    expect(await admitted(w, 'slide', 60, 10)).toBe(0);
    clock.set(65_000); // the first 30 (slice 0-5 s) have slid out, the other 30 still count
    expect(await admitted(w, 'slide', 60, 100)).toBe(30);
    clock.set(85_000); // the 30 from 20 s are out; the 30 from 65 s remain
    expect(await admitted(w, 'slide', 60, 100)).toBe(30);
  });

  it('does not count refused requests against the window', async () => {
    const clock = manualClock();
    const w = windowOf(clock.now);
    clock.set(1_000);
    await admitted(w, 'refused', 5, 50);
    clock.set(30_000);
    expect(await admitted(w, 'refused', 5, 10)).toBe(0);
    clock.set(65_000); // only the 5 admitted ones were counted, and they have slid out
    expect(await admitted(w, 'refused', 5, 10)).toBe(5);
  });

  it('admits exactly the limit when many requests race for the last units', async () => {
    const clock = manualClock();
    const w = windowOf(clock.now);
    clock.set(5_000);
    const results = await Promise.all(Array.from({ length: 150 }, () => w.consume('race', 40)));
    expect(results.filter((r) => r.allowed)).toHaveLength(40);
  });

  it('admits exactly the limit across two instances racing, and tells each admitted caller its own remaining count', async () => {
    const clock = manualClock();
    clock.set(10_000);
    const a = windowOf(clock.now);
    const b = windowOf(clock.now);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).consume('race-two', 30)));
    const admittedStates = results.filter((r) => r.allowed);
    expect(admittedStates).toHaveLength(30);
    expect(admittedStates.map((r) => r.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(results.filter((r) => !r.allowed).every((r) => r.remaining === 0 && r.resetSeconds > 0)).toBe(true);
  });

  it('reports the state without charging when peeking', async () => {
    const clock = manualClock();
    const w = windowOf(clock.now);
    clock.set(2_000);
    await admitted(w, 'peek', 3, 3);
    const p = await w.peek('peek', 3);
    expect(p).toMatchObject({ allowed: false, remaining: 0 });
    expect(await w.peek('peek-other', 3)).toMatchObject({ allowed: true, remaining: 3 });
  });
});

/** A real store that counts the charges reaching it, to show what leases save. */
class CountingStore implements SliceStore {
  charges = 0;
  constructor(private readonly inner: SliceStore) {}
  charge(req: Parameters<SliceStore['charge']>[0]) {
    this.charges++;
    return this.inner.charge(req);
  }
  read(ids: readonly string[]) {
    return this.inner.read(ids);
  }
  giveBack(id: string, units: number) {
    return this.inner.giveBack(id, units);
  }
}

const leaseStores: [string, () => SliceStore][] = [['the Memory store', memoryStore]];
if (REDIS_URL) leaseStores.push(['the Redis store', redisStore]);

describe.each(leaseStores)('leases of a busy counter on %s', (_name, makeStore) => {
  let store: CountingStore;
  beforeEach(async () => {
    store = new CountingStore(makeStore());
    await redisReady();
  });
  const used = async (w: SlidingWindow, id: string) => (await w.peek(id, 1_000_000)).used;

  it('admits exactly the limit with far fewer store calls than requests, and counts remaining down by one', async () => {
    const clock = manualClock();
    clock.set(10_000);
    const w = new SlidingWindow(store, clock.now);
    const results = [];
    let chargesToFill = 0;
    for (let i = 0; i < 2_500; i++) {
      results.push(await w.consume('busy', 2_000));
      if (i === 1_999) chargesToFill = store.charges;
    }
    const admittedStates = results.filter((r) => r.allowed);
    expect(admittedStates).toHaveLength(2_000);
    expect(admittedStates.map((r) => r.remaining)).toEqual(Array.from({ length: 2_000 }, (_, i) => 1_999 - i));
    expect(results.slice(2_000).every((r) => !r.allowed && r.remaining === 0 && r.resetSeconds === 65)).toBe(true);
    expect(chargesToFill).toBeLessThan(400);
    expect(await used(w, 'busy')).toBe(2_000);
  });

  it('never lets two busy instances together pass the limit, and admits exactly it while both keep asking', async () => {
    const clock = manualClock();
    clock.set(20_000);
    const a = new SlidingWindow(store, clock.now);
    const b = new SlidingWindow(store, clock.now);
    let admittedCount = 0;
    let chargesToFill = 0;
    for (let i = 0; i < 3_000; i++) {
      if ((await (i % 2 ? a : b).consume('two-busy', 1_000)).allowed && ++admittedCount === 1_000) chargesToFill = store.charges;
      expect(admittedCount).toBeLessThanOrEqual(1_000);
    }
    expect(admittedCount).toBe(1_000);
    expect(chargesToFill).toBeLessThan(500);
    expect(await used(a, 'two-busy')).toBe(1_000);
  });

  it('does not use a lease outside its slice, and gives its unused units back with the next charge', async () => {
    const clock = manualClock();
    clock.set(30_000);
    const w = new SlidingWindow(store, clock.now);
    for (let i = 0; i < 1_000; i++) await w.consume('slices', 100_000);
    expect(await used(w, 'slices')).toBeGreaterThan(1_000); // the lease's unused units are reserved
    clock.set(35_000);
    const next = await w.consume('slices', 100_000);
    expect(next).toMatchObject({ allowed: true, slice: clock.now() / 5_000, used: 1_001, remaining: 100_000 - 1_001 });
    await w.close(); // gives back the lease this charge took in the new slice
    expect(await used(w, 'slices')).toBe(1_001);
  });

  it('gives back the units of a lease left unused for a second', async () => {
    // The lease's timer runs on fake timers; the store's own I/O and the window's pump (setImmediate) stay real.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const clock = manualClock();
      clock.set(40_000);
      const w = new SlidingWindow(store, clock.now);
      for (let i = 0; i < 1_000; i++) await w.consume('idle', 100_000);
      expect(await used(w, 'idle')).toBeGreaterThan(1_000);
      await jest.advanceTimersByTimeAsync(LEASE_TTL_MS - 1);
      expect(await used(w, 'idle')).toBeGreaterThan(1_000); // still held just before the second is up
      await jest.advanceTimersByTimeAsync(1);
      expect(await used(w, 'idle')).toBe(1_000);
    } finally {
      jest.useRealTimers();
    }
  });

  it('puts a refunded unit back into the lease, and a shutdown gives the lease back', async () => {
    const clock = manualClock();
    clock.set(50_000);
    const w = new SlidingWindow(store, clock.now);
    let last;
    for (let i = 0; i < 1_000; i++) last = await w.consume('refund', 100_000);
    await w.refund('refund', last!.slice);
    expect((await w.consume('refund', 100_000)).remaining).toBe(last!.remaining);
    await w.close();
    expect(await used(w, 'refund')).toBe(1_000);
  });
});

describe('msUntilNext', () => {
  const slice = 100; // the current 5 s slice starts at 500 s
  const older = (counts: Record<number, number>) => Array.from({ length: 12 }, (_, i) => counts[i] ?? 0);

  it('is zero while the window has room', () => {
    expect(msUntilNext(older({}), 5, slice, 500_000, 10)).toBe(0);
  });

  it('waits for the oldest slices to slide out when they hold the count', () => {
    // 6 in the oldest slice (440-445 s), 4 now: one more passes when the oldest stops counting at 505 s.
    expect(msUntilNext(older({ 0: 6 }), 4, slice, 501_000, 10)).toBe(4_000);
    // 6 in the slice at 450-455 s: it stops counting at 515 s.
    expect(msUntilNext(older({ 2: 6 }), 4, slice, 501_000, 10)).toBe(14_000);
  });

  it('waits for the current slice to slide out when it alone is full', () => {
    expect(msUntilNext(older({}), 10, slice, 502_000, 10)).toBe(63_000);
  });
});
