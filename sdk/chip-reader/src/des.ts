import 'node-forge/lib/des'; // registers DES-CBC and 3DES-CBC with forge's cipher registry
import forgeCipher from 'node-forge/lib/cipher';
import forgeUtil from 'node-forge/lib/util';
import { pad } from './bytes';

/**
 * DES and two-key 3DES (ICAO 9303-11 BAC and 3DES secure messaging) through node-forge's
 * pure-JS DES: WebCrypto and the noble libraries have no DES. Only the ECB/CBC block work is
 * node-forge's; MAC algorithm 3 is the ISO 9797-1 composition of those blocks.
 */

const toBinary = (bytes: Uint8Array): string => {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
};
const fromBinary = (s: string): Uint8Array => {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
};

const ZERO_IV = new Uint8Array(8);

/** CBC with an 8-byte key (DES) or a 24-byte key (3DES EDE). */
function run(key: Uint8Array, data: Uint8Array, iv: Uint8Array, encrypt: boolean): Uint8Array {
  if (data.length % 8 !== 0) throw new Error('DES input must be whole 8-byte blocks');
  const algorithm = key.length === 8 ? 'DES-CBC' : '3DES-CBC';
  const cipher = encrypt ? forgeCipher.createCipher(algorithm, toBinary(key)) : forgeCipher.createDecipher(algorithm, toBinary(key));
  cipher.start({ iv: toBinary(iv) });
  cipher.update(forgeUtil.createBuffer(toBinary(data)));
  // Padding is ICAO's own (ISO 9797-1 method 2), applied by the caller: forge's PKCS#7 stays off.
  cipher.finish(() => true);
  return fromBinary(cipher.output.getBytes()).subarray(0, data.length);
}

/** K1 || K2 || K1: the 16-byte BAC key as the 24-byte key forge's 3DES takes. */
const tripleKey = (key16: Uint8Array): Uint8Array => {
  const k = new Uint8Array(24);
  k.set(key16.subarray(0, 16));
  k.set(key16.subarray(0, 8), 16);
  return k;
};

export const tdesEncrypt = (key16: Uint8Array, data: Uint8Array, iv: Uint8Array = ZERO_IV): Uint8Array => run(tripleKey(key16), data, iv, true);
export const tdesDecrypt = (key16: Uint8Array, data: Uint8Array, iv: Uint8Array = ZERO_IV): Uint8Array => run(tripleKey(key16), data, iv, false);

/**
 * ISO/IEC 9797-1 MAC algorithm 3 ("retail MAC") with DES, padding method 2: single-DES CBC under
 * K1 over every block, then the last block decrypted under K2 and encrypted under K1.
 */
export function retailMac(key16: Uint8Array, message: Uint8Array): Uint8Array {
  const padded = pad(message, 8);
  const k1 = key16.subarray(0, 8);
  const k2 = key16.subarray(8, 16);
  const chained = run(k1, padded, ZERO_IV, true);
  const last = chained.subarray(chained.length - 8);
  return run(k1, run(k2, last, ZERO_IV, false), ZERO_IV, true);
}
