import { UploadGate } from './upload-gate';

describe('UploadGate', () => {
  it('never reads more bodies at once than it has slots, and finishes every upload, failed ones included', async () => {
    const gate = new UploadGate(3);
    let running = 0;
    let most = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        gate.run(async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 2 + (i % 4)));
          running--;
          if (i % 5 === 0) throw new Error(`upload ${i} refused`);
          return i;
        }),
      ),
    );
    expect(most).toBe(3);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(16);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(4);
    // The slots are all free again: three more run at once.
    let now = 0;
    let peak = 0;
    await Promise.all(Array.from({ length: 3 }, () => gate.run(async () => { now++; peak = Math.max(peak, now); await new Promise((r) => setTimeout(r, 5)); now--; })));
    expect(peak).toBe(3);
  });
});
