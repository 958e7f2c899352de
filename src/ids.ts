import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// CSPRNG bytes drawn 4 KiB at a time, as crypto.randomUUID does: one syscall per many ids, not one per id.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Uniform base62 from a CSPRNG (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix = 'vses' | 'ten' | 'flow' | 'key' | 'whk' | 'evt' | 'dlv' | 'dsr' | 'usr' | 'vdec' | 'bimp' | 'mbr' | 'minv' | 'pkey';

/** Ids per docs/api-behaviour.md, "Shapes": a prefix and 24 base62 characters. */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(24)}`;

export const SESSION_ID_PATTERN = /^vses_[A-Za-z0-9]{16,}$/;
export const DSR_ID_PATTERN = /^dsr_[A-Za-z0-9]{16,}$/;

export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** Compares two hex digests without leaking where they differ. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
