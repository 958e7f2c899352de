import { cbc, ecb } from '@noble/ciphers/aes';
import { concat, pad, xor } from './bytes';

/** AES for PACE-established secure messaging (ICAO 9303-11 9.8.7), on @noble/ciphers. */

export const aesCbcEncrypt = (key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array => cbc(key, iv, { disablePadding: true }).encrypt(data);
export const aesCbcDecrypt = (key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array => cbc(key, iv, { disablePadding: true }).decrypt(data);
export const aesBlock = (key: Uint8Array, block: Uint8Array): Uint8Array => ecb(key, { disablePadding: true }).encrypt(block);

function shiftLeft(block: Uint8Array): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = ((block[i] << 1) | (i < 15 ? block[i + 1] >> 7 : 0)) & 0xff;
  if (block[0] & 0x80) out[15] ^= 0x87;
  return out;
}

/**
 * AES-CMAC (NIST SP 800-38B / RFC 4493). @noble/ciphers 1.x has the AES block but no CMAC; this is
 * the mode's subkey and chaining steps only, checked against the RFC 4493 vectors in the tests.
 */
export function aesCmac(key: Uint8Array, message: Uint8Array): Uint8Array {
  const k1 = shiftLeft(aesBlock(key, new Uint8Array(16)));
  const k2 = shiftLeft(k1);
  const whole = message.length > 0 && message.length % 16 === 0;
  const padded = whole ? message : pad(message, 16).subarray(0, Math.ceil((message.length + 1) / 16) * 16);
  const blocks = concat(padded.subarray(0, padded.length - 16), xor(padded.subarray(padded.length - 16), whole ? k1 : k2));
  const chained = cbc(key, new Uint8Array(16), { disablePadding: true }).encrypt(blocks);
  return chained.subarray(chained.length - 16);
}
