import { createHmac, timingSafeEqual } from 'node:crypto';
import { IdvSignatureError } from './errors';
import type { WebhookEvent } from './types';

/** The header name every delivery and delegated-request callback carries. */
export const SIGNATURE_HEADER = 'service-signature';

export type VerifySignatureOptions = {
  /** How far the header's `t` may be from your clock, either way, in seconds. @default 300 */
  toleranceSeconds?: number;
  /** Your clock in unix seconds. @default now */
  nowSeconds?: number;
};

/**
 * True when `header` (`Service-Signature: v1,t=<unix>,sig=<hex>[,sig=<hex>]`) signs exactly `rawBody` with
 * `secret` and its `t` is within the tolerance (docs/webhooks.md). `sig` is the hex HMAC-SHA256 of
 * `<t>.<raw body bytes>` keyed with the whole secret string; during a secret rotation the header carries one
 * `sig` per secret, and either matching is enough. Pass the body bytes as received: JSON parsed and
 * re-serialised is not the same bytes.
 */
export function verifySignature(rawBody: string | Uint8Array, header: string | null | undefined, secret: string, opts: VerifySignatureOptions = {}): boolean {
  if (typeof header !== 'string' || !secret) return false;
  const parts = header.split(',').map((p) => p.trim());
  if (parts[0] !== 'v1') return false;
  let t: number | null = null;
  const sigs: Buffer[] = [];
  for (const part of parts.slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0) return false;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'sig' && /^[0-9a-f]{64}$/.test(value)) sigs.push(Buffer.from(value, 'hex'));
  }
  if (t === null || sigs.length === 0) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  // Every candidate is compared, each in constant time: how many signatures matched does not show in the timing.
  let ok = false;
  for (const sig of sigs) ok = timingSafeEqual(sig, expected) || ok;
  return ok;
}

/** Verifies, then parses the delivery: the event, or an IdvSignatureError (answer the delivery with a 400). */
export function constructEvent(rawBody: string | Uint8Array, header: string | null | undefined, secret: string, opts: VerifySignatureOptions = {}): WebhookEvent {
  if (!verifySignature(rawBody, header, secret, opts)) throw new IdvSignatureError('Service-Signature does not match this body and secret, or its timestamp is outside the tolerance');
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return JSON.parse(text) as WebhookEvent;
}
