import { DomainError } from '../errors';
import { atMinimumRate } from './minimum-rate';

/**
 * On jest's fake timers (Date.now included): the verdict is the code's own arithmetic on the clock it
 * reads, never how fast a loaded machine runs the trickle (issue 47: this test failed under load).
 */
async function* trickle(chunks: number, size: number, everyMs: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < chunks; i++) {
    await new Promise((r) => setTimeout(r, everyMs));
    yield Buffer.alloc(size);
  }
}

const drain = async (it: AsyncIterable<Buffer>) => {
  let n = 0;
  for await (const c of it) n += c.length;
  return n;
};

describe('atMinimumRate', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('passes a body that keeps the rate, however long it takes', async () => {
    const fast = drain(atMinimumRate(trickle(10, 2048, 10), { graceMs: 50, bytesPerSecond: 16 * 1024 }));
    // 2 KiB every 100 ms is 20 KiB/s: above the minimum for all of its 20 s.
    const long = drain(atMinimumRate(trickle(200, 2048, 100), { graceMs: 1_000, bytesPerSecond: 16 * 1024 }));
    await jest.advanceTimersByTimeAsync(30_000);
    expect(await fast).toBe(20480);
    expect(await long).toBe(200 * 2048);
  });

  it('cuts a body that falls below the rate once the grace is over, and one that stops sending', async () => {
    const slow = expect(drain(atMinimumRate(trickle(100, 10, 20), { graceMs: 100, bytesPerSecond: 16 * 1024 }))).rejects.toMatchObject({ code: 'upload_too_slow' });
    const stalled = expect(
      drain(atMinimumRate((async function* () { yield Buffer.alloc(10); await new Promise(() => undefined); })(), { graceMs: 50, bytesPerSecond: 1024 })),
    ).rejects.toBeInstanceOf(DomainError);
    await jest.advanceTimersByTimeAsync(5_000);
    await slow;
    await stalled;
  });

  it('never cuts before the grace period is over, however slow the start', async () => {
    let cut = false;
    const slow = drain(atMinimumRate(trickle(3, 1, 400), { graceMs: 1_000, bytesPerSecond: 16 * 1024 })).catch((err: DomainError) => {
      cut = true;
      return err;
    });
    await jest.advanceTimersByTimeAsync(999);
    expect(cut).toBe(false);
    await jest.advanceTimersByTimeAsync(2);
    expect(cut).toBe(true);
    expect(await slow).toMatchObject({ code: 'upload_too_slow' });
  });
});
