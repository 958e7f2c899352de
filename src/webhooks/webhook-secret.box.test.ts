import { randomBytes } from 'node:crypto';
import { WebhookSecretBox } from './webhook-secret.box';

describe('WebhookSecretBox', () => {
  it('round-trips a secret, never stores it in clear, and detects tampering or another key', () => {
    const box = WebhookSecretBox.fromKey(randomBytes(32));
    const sealed = box.seal('whsec_abc');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed); // a fresh IV each time
    expect(box.open(sealed)).toBe('whsec_abc');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => box.open(`v1:${raw.toString('base64')}`)).toThrow();
    expect(() => WebhookSecretBox.fromKey(randomBytes(32)).open(sealed)).toThrow();
  });
});
