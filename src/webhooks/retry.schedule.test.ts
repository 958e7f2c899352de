import { MAX_ATTEMPTS, RETRY_CAPS_SECONDS, retryDelayMs } from './retry.schedule';

describe('retryDelayMs', () => {
  it('draws the first retry from within a minute (full jitter)', () => {
    expect(retryDelayMs(1, { random: () => 0 })).toBe(0);
    expect(retryDelayMs(1, { random: () => 0.999999 })).toBeLessThan(60_000);
  });

  it('grows the caps so that eight attempts span about 3 days on average', () => {
    expect(RETRY_CAPS_SECONDS).toHaveLength(MAX_ATTEMPTS - 1);
    const expectedSpanDays = RETRY_CAPS_SECONDS.reduce((a, b) => a + b, 0) / 2 / 86_400;
    expect(expectedSpanDays).toBeGreaterThan(2.5);
    expect(expectedSpanDays).toBeLessThan(3.5);
    for (let i = 1; i < RETRY_CAPS_SECONDS.length; i++) expect(RETRY_CAPS_SECONDS[i]).toBeGreaterThan(RETRY_CAPS_SECONDS[i - 1]);
  });

  it('stops after the eighth attempt', () => {
    expect(retryDelayMs(MAX_ATTEMPTS)).toBeNull();
    expect(retryDelayMs(MAX_ATTEMPTS - 1, { random: () => 0.5 })).toBe(36 * 3_600_000);
  });

  it('waits at least as long as Retry-After asks, unscaled, and at most 72 h', () => {
    expect(retryDelayMs(1, { random: () => 0, scale: 0.001, retryAfterMs: 2_000 })).toBe(2_000);
    expect(retryDelayMs(1, { random: () => 0, retryAfterMs: 10 * 86_400_000 })).toBe(72 * 3_600_000);
  });

  it('scales the caps for tests', () => {
    expect(retryDelayMs(1, { random: () => 0.999, scale: 0.001 })).toBeLessThan(60);
  });
});
