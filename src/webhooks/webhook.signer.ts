import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header every delivery carries: `v1,t=<unix seconds>,sig=<hex>[,sig=<hex>]` (docs/webhooks.md). */
export const SIGNATURE_HEADER = 'Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Lower-case hex HMAC-SHA256 of `<t>.<raw body bytes>`, keyed with the whole signing secret string. */
export function computeSignature(secret: string, t: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

/**
 * The header value for one attempt. During a rotation's overlap there are two secrets: the new
 * one signs first, the old one second, so receivers holding either secret accept the delivery.
 */
export function signatureHeader(secrets: readonly string[], t: number, rawBody: string | Buffer): string {
  return ['v1', `t=${t}`, ...secrets.map((s) => `sig=${computeSignature(s, t, rawBody)}`)].join(',');
}

export type VerifyOptions = {
  /** How far `t` may be from the receiver's clock, either way. @default 300 */
  toleranceSeconds?: number;
  /** The receiver's clock, in unix seconds (tests). @default now */
  nowSeconds?: number;
};

/**
 * Receiver-side check of a delivery: true when one `sig` of the header is the HMAC of exactly
 * these body bytes under `secret`, and `t` is within the tolerance. Pass the RAW body: a body
 * parsed and re-serialised as JSON is not the same bytes and will not verify.
 */
export function verifyServiceSignature(rawBody: string | Buffer, header: string | null | undefined, secret: string, opts: VerifyOptions = {}): boolean {
  if (typeof header !== 'string' || !secret) return false;
  const parts = header.split(',').map((p) => p.trim());
  if (parts[0] !== 'v1') return false;
  let t: number | null = null;
  const sigs: string[] = [];
  for (const part of parts.slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0) return false;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'sig' && /^[0-9a-f]{64}$/.test(value)) sigs.push(value);
  }
  if (t === null || sigs.length === 0) return false;
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > tolerance) return false;
  const expected = Buffer.from(computeSignature(secret, t, rawBody), 'hex');
  return sigs.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
}
