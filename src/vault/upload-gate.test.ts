import { UploadGate } from './upload-gate';

describe('UploadGate', () => {
  it('never reads more bodies at once than it has slots, and finishes every upload, failed ones included', async () => {
    const gate = new UploadGate({ slots: 3, perTenant: 3, perSession: 3 });
    let running = 0;
    let most = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        gate.run({ tenantId: 't', sessionId: `s${i}` }, async () => {
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
    await Promise.all(Array.from({ length: 3 }, (_, i) => gate.run({ tenantId: 't', sessionId: `s${i}` }, async () => { now++; peak = Math.max(peak, now); await new Promise((r) => setTimeout(r, 5)); now--; })));
    expect(peak).toBe(3);
  });

  it('lets one tenant hold at most its share of the slots, and one session its own, so others still get in', async () => {
    const gate = new UploadGate({ slots: 4, perTenant: 2, perSession: 1 });
    const held: (() => void)[] = [];
    const hold = (tenantId: string, sessionId: string) => gate.run({ tenantId, sessionId }, () => new Promise<void>((r) => held.push(r)));
    const slow = [hold('a', 'a1'), hold('a', 'a2'), hold('a', 'a3'), hold('a', 'a1')];
    await new Promise((r) => setImmediate(r));
    expect(held).toHaveLength(2); // tenant a reads two bodies; its others wait
    let other = false;
    await gate.run({ tenantId: 'b', sessionId: 'b1' }, async () => void (other = true));
    expect(other).toBe(true); // tenant b is not stalled behind a's slow uploads
    held.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(held).toHaveLength(2); // a3 (not a1's second: one per session) took the free share
    for (let i = 0; i < 4 && held.length; i++) {
      held.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    while (held.length) held.shift()!();
    await Promise.all(slow);
  });
});
