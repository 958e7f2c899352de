import type { DataSource } from 'typeorm';
import { BUCKETS } from './buckets';
import { OVERRIDE_CACHE_MS, RateLimitOverrides } from './rate-limit-overrides';

/**
 * "A change is live everywhere within a second" is this cache's lifetime on the clock it is given; the
 * e2e test (test/e2e/rate-limit.test.ts, per-tenant overrides) shows the change through the server
 * without timing it, which a loaded machine would make flaky (issue 47).
 */
describe('RateLimitOverrides', () => {
  // Another instance's write: the rows this instance reads, changed behind its back.
  let rows: { bucket: string; limit: number }[] = [];
  let reads = 0;
  const db = { getRepository: () => ({ find: async () => (reads++, rows.map((r) => ({ ...r }))) }) } as unknown as DataSource;

  it("picks up another instance's change once its copy is older than OVERRIDE_CACHE_MS, and not before", async () => {
    let now = 1_000_000;
    const overrides = new RateLimitOverrides(db, () => now);
    expect(await overrides.limitFor('ten_1', 'social_read')).toBe(BUCKETS.social_read.limit);
    rows = [{ bucket: 'social_read', limit: 5000 }];
    now += OVERRIDE_CACHE_MS - 1;
    expect(overrides.cachedLimitFor('ten_1', 'social_read')).toBe(BUCKETS.social_read.limit);
    expect(await overrides.limitFor('ten_1', 'social_read')).toBe(BUCKETS.social_read.limit);
    now += 1;
    expect(overrides.cachedLimitFor('ten_1', 'social_read')).toBeUndefined(); // stale: the service reads again
    expect(await overrides.limitFor('ten_1', 'social_read')).toBe(5000);
    expect(reads).toBe(2);
  });
});
