import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { msUntilNext, SlidingWindow, STORE_POINTS } from './sliding-window';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MINUTE = 60_000;

/** A clock the test moves by hand, starting at a window boundary. */
function manualClock() {
  let t = 1_000 * MINUTE;
  return { now: () => t, set: (msIntoRun: number) => (t = 1_000 * MINUTE + msIntoRun) };
}

const redisClients: Redis[] = [];
afterAll(() => redisClients.forEach((r) => r.disconnect()));

const stores: [string, () => RateLimiterAbstract][] = [
  ['the Memory store', () => new RateLimiterMemory({ points: STORE_POINTS, duration: 120, keyPrefix: 'rl-unit' })],
  [
    'the Redis store',
    () => {
      const client = new Redis(REDIS_URL, { lazyConnect: false });
      redisClients.push(client);
      return new RateLimiterRedis({ storeClient: client, points: STORE_POINTS, duration: 120, keyPrefix: `rl-unit-${randomBytes(6).toString('hex')}` });
    },
  ],
];

async function admitted(w: SlidingWindow, id: string, limit: number, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await w.consume(id, limit)).allowed) ok++;
  return ok;
}

describe.each(stores)('the sliding window over %s', (_name, makeStore) => {
  let store: RateLimiterAbstract;
  beforeAll(() => {
    store = makeStore();
  });

  it('admits exactly the limit in one window, then refuses with a whole-second reset', async () => {
    const clock = manualClock();
    const w = new SlidingWindow(store, clock.now);
    clock.set(10_000);
    const results = [];
    for (let i = 0; i < 12; i++) results.push(await w.consume('exact', 10));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(results[9]).toMatchObject({ allowed: true, remaining: 0, limit: 10 });
    expect(results[0]).toMatchObject({ remaining: 9, resetSeconds: 0 });
    const refused = results[11];
    expect(refused.allowed).toBe(false);
    // 10 requests in this window: the next one passes once the window has turned and
    // 10 * (1 - e/60) <= 9, i.e. 6 s into the next window: 50 s + 6 s from now.
    expect(refused.resetSeconds).toBe(56);
    expect(Number.isInteger(refused.resetSeconds)).toBe(true);
  });

  it('does not let a burst at the end of one minute and the start of the next pass twice the limit', async () => {
    const clock = manualClock();
    const w = new SlidingWindow(store, clock.now);
    clock.set(59_500);
    const first = await admitted(w, 'boundary', 60, 100);
    clock.set(60_500);
    const second = await admitted(w, 'boundary', 60, 100);
    expect(first).toBe(60);
    expect(first + second).toBeLessThanOrEqual(61); // a fixed window would have admitted 120
  });

  it('frees capacity as the previous window slides out', async () => {
    const clock = manualClock();
    const w = new SlidingWindow(store, clock.now);
    clock.set(0);
    expect(await admitted(w, 'slide', 60, 60)).toBe(60);
    clock.set(MINUTE + 30_000); // half of the previous window still counts: 30 of 60
    expect(await admitted(w, 'slide', 60, 100)).toBe(30);
    clock.set(2 * MINUTE + 59_999); // the previous window (30) weighs almost nothing; 59 more fit
    expect(await admitted(w, 'slide', 60, 100)).toBe(59);
  });

  it('does not count refused requests against the window', async () => {
    const clock = manualClock();
    const w = new SlidingWindow(store, clock.now);
    clock.set(1_000);
    await admitted(w, 'refused', 5, 50);
    clock.set(MINUTE + 30_000);
    // 5 (not 50) in the previous window, weighted 0.5 -> 2.5 used, 2 more admitted.
    expect(await admitted(w, 'refused', 5, 10)).toBe(2);
  });

  it('admits exactly the limit when many requests race for the last units', async () => {
    const clock = manualClock();
    const w = new SlidingWindow(store, clock.now);
    clock.set(5_000);
    const results = await Promise.all(Array.from({ length: 150 }, () => w.consume('race', 40)));
    expect(results.filter((r) => r.allowed)).toHaveLength(40);
  });

  it('reports the state without charging when peeking', async () => {
    const clock = manualClock();
    const w = new SlidingWindow(store, clock.now);
    clock.set(2_000);
    await admitted(w, 'peek', 3, 3);
    const p = await w.peek('peek', 3);
    expect(p).toMatchObject({ allowed: false, remaining: 0 });
    expect(await w.peek('peek-other', 3)).toMatchObject({ allowed: true, remaining: 3 });
  });
});

describe('msUntilNext', () => {
  it('is zero while the estimate leaves room', () => {
    expect(msUntilNext(0, 5, 0, 10)).toBe(0);
  });

  it('waits for the previous window to slide out when it holds the count', () => {
    // prev 60, cur 0, at 0 s: one more passes when 60 * (1 - e/60) <= 59 -> e = 1 s.
    expect(msUntilNext(60, 0, 0, 60)).toBeCloseTo(1000, 6);
  });

  it('waits for the next window when the current one alone is full', () => {
    expect(msUntilNext(0, 60, 30_000, 60)).toBeCloseTo(30_000 + 1000, 6);
  });
});
