import { DomainError } from '../errors';
import { atMinimumRate } from './minimum-rate';

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
  it('passes a body that keeps the rate, however long it takes', async () => {
    expect(await drain(atMinimumRate(trickle(10, 2048, 10), { graceMs: 50, bytesPerSecond: 16 * 1024 }))).toBe(20480);
  });

  it('cuts a body that falls below the rate once the grace is over, and one that stops sending', async () => {
    const slow = drain(atMinimumRate(trickle(100, 10, 20), { graceMs: 100, bytesPerSecond: 16 * 1024 }));
    await expect(slow).rejects.toMatchObject({ code: 'upload_too_slow' });
    const stalled = drain(atMinimumRate((async function* () { yield Buffer.alloc(10); await new Promise(() => undefined); })(), { graceMs: 50, bytesPerSecond: 1024 }));
    await expect(stalled).rejects.toBeInstanceOf(DomainError);
  });
});
