import { createHmac } from 'node:crypto';
import { computeSignature, signatureHeader, verifyServiceSignature } from './webhook.signer';

const body = '{"id":"evt_1","type":"verification.completed"}';
const t = 1_795_320_000;

describe('verifyServiceSignature', () => {
  it('accepts the header of a delivery and matches a plain HMAC of "<t>.<body>"', () => {
    const header = signatureHeader(['whsec_a'], t, body);
    expect(header).toBe(`v1,t=${t},sig=${createHmac('sha256', 'whsec_a').update(`${t}.${body}`).digest('hex')}`);
    expect(verifyServiceSignature(body, header, 'whsec_a', { nowSeconds: t })).toBe(true);
    expect(verifyServiceSignature(Buffer.from(body), header, 'whsec_a', { nowSeconds: t + 300 })).toBe(true);
  });

  it('refuses a tampered body, another secret, a stale or future timestamp, and malformed headers', () => {
    const header = signatureHeader(['whsec_a'], t, body);
    expect(verifyServiceSignature(body + ' ', header, 'whsec_a', { nowSeconds: t })).toBe(false);
    expect(verifyServiceSignature(body, header, 'whsec_b', { nowSeconds: t })).toBe(false);
    expect(verifyServiceSignature(body, header, 'whsec_a', { nowSeconds: t + 301 })).toBe(false);
    expect(verifyServiceSignature(body, header, 'whsec_a', { nowSeconds: t - 301 })).toBe(false);
    for (const bad of ['', 'v2,t=1,sig=00', `t=${t},sig=${computeSignature('whsec_a', t, body)}`, `v1,sig=${computeSignature('whsec_a', t, body)}`, null]) {
      expect(verifyServiceSignature(body, bad, 'whsec_a', { nowSeconds: t })).toBe(false);
    }
  });

  it('accepts either secret during a rotation overlap', () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], t, body);
    expect(header.split(',sig=')).toHaveLength(3);
    expect(verifyServiceSignature(body, header, 'whsec_new', { nowSeconds: t })).toBe(true);
    expect(verifyServiceSignature(body, header, 'whsec_old', { nowSeconds: t })).toBe(true);
    expect(verifyServiceSignature(body, header, 'whsec_other', { nowSeconds: t })).toBe(false);
  });
});
