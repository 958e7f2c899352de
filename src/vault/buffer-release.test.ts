import { createDecipheriv, randomBytes } from 'node:crypto';
import { releaseBuffer } from './buffer-release';

describe('releaseBuffer', () => {
  it("frees a decipher's output at once: the process's ArrayBuffer memory drops by its size", () => {
    const decipher = createDecipheriv('aes-256-gcm', randomBytes(32), randomBytes(12));
    const out = decipher.update(Buffer.alloc(1024 * 1024));
    const held = process.memoryUsage().arrayBuffers;
    expect(releaseBuffer(out)).toBe(true);
    expect(held - process.memoryUsage().arrayBuffers).toBeGreaterThanOrEqual(1024 * 1024);
    expect(out.length).toBe(0);
  });

  it('leaves alone what others may share: a slice, a pooled small buffer, one already freed', () => {
    const whole = Buffer.allocUnsafeSlow(256 * 1024).fill(7);
    const slice = whole.subarray(1024);
    expect(releaseBuffer(slice)).toBe(false);
    expect(whole[0]).toBe(7);
    const pooled = Buffer.from('a few bytes');
    expect(releaseBuffer(pooled)).toBe(false);
    expect(pooled.toString()).toBe('a few bytes');
    expect(releaseBuffer(Buffer.allocUnsafeSlow(4096))).toBe(false);
    expect(releaseBuffer(whole)).toBe(true);
    expect(releaseBuffer(whole)).toBe(false);
  });
});
