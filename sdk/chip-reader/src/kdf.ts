import { sha1 } from '@noble/hashes/sha1';
import { sha256 } from '@noble/hashes/sha2';
import { concat } from './bytes';

/** ICAO 9303-11 9.7.1: key derivation from a seed (BAC's Kseed or PACE's shared secret). */

export type CipherSuite = '3DES' | 'AES-128' | 'AES-192' | 'AES-256';
export const ENC = 1;
export const MAC = 2;
export const PACE_PASSWORD = 3;

/** DES keys carry odd parity in each byte's low bit (the BAC worked example's keys show it). */
function withOddParity(key: Uint8Array): Uint8Array {
  return key.map((b) => {
    let ones = 0;
    for (let bit = 1; bit < 8; bit++) ones += (b >> bit) & 1;
    return (b & 0xfe) | (ones % 2 === 0 ? 1 : 0);
  });
}

export function deriveKey(seed: Uint8Array, counter: number, suite: CipherSuite): Uint8Array {
  const d = concat(seed, new Uint8Array([(counter >>> 24) & 0xff, (counter >>> 16) & 0xff, (counter >>> 8) & 0xff, counter & 0xff]));
  switch (suite) {
    case '3DES':
      return withOddParity(sha1(d).subarray(0, 16));
    case 'AES-128':
      return sha1(d).subarray(0, 16);
    case 'AES-192':
      return sha256(d).subarray(0, 24);
    case 'AES-256':
      return sha256(d);
  }
}
