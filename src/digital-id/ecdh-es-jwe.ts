import { createCipheriv, createDecipheriv, createHash, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';

/**
 * Compact JWE with ECDH-ES direct key agreement (RFC 7518 4.6) and AES-GCM: what OpenID4VP 1.0 uses for
 * `direct_post.jwt` answers, encrypted to a key the request published. Written on node:crypto because
 * `jose` v6 is ESM-only and this codebase (and its jest) is CommonJS; it implements only this one profile.
 */

type Enc = 'A128GCM' | 'A256GCM';
const KEY_BYTES: Record<Enc, number> = { A128GCM: 16, A256GCM: 32 };

export class JweError extends Error {}

export function decryptEcdhEsJwe(compact: string, recipientPrivateJwk: JsonWebKey): Buffer {
  const parts = compact.split('.');
  if (parts.length !== 5) throw new JweError('not a compact JWE');
  const [protectedB64, encryptedKey, ivB64, ciphertextB64, tagB64] = parts;
  let header: { alg?: string; enc?: string; epk?: JsonWebKey; apu?: string; apv?: string };
  try {
    header = JSON.parse(Buffer.from(protectedB64, 'base64url').toString('utf8'));
  } catch {
    throw new JweError('the JWE header is not JSON');
  }
  if (header.alg !== 'ECDH-ES' || encryptedKey !== '') throw new JweError('only ECDH-ES direct key agreement is accepted');
  if (header.enc !== 'A128GCM' && header.enc !== 'A256GCM') throw new JweError('unsupported enc');
  if (!header.epk || header.epk.kty !== 'EC' || header.epk.crv !== recipientPrivateJwk.crv) throw new JweError('bad ephemeral key');

  const key = deriveKey(header.enc, recipientPrivateJwk, header.epk, header.apu, header.apv);
  try {
    const decipher = createDecipheriv(gcm(header.enc), key, Buffer.from(ivB64, 'base64url'));
    decipher.setAAD(Buffer.from(protectedB64, 'ascii'));
    decipher.setAuthTag(Buffer.from(tagB64, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertextB64, 'base64url')), decipher.final()]);
  } catch {
    throw new JweError('the JWE does not decrypt with this key');
  }
}

export function encryptEcdhEsJwe(plaintext: Buffer, recipientPublicJwk: JsonWebKey, options: { enc?: Enc; kid?: string; apu?: string; apv?: string } = {}): string {
  const enc = options.enc ?? 'A128GCM';
  const ephemeral = generateKeyPairSync('ec', { namedCurve: curveName(recipientPublicJwk.crv) });
  const epk = ephemeral.publicKey.export({ format: 'jwk' });
  const header = { alg: 'ECDH-ES', enc, epk, ...(options.kid ? { kid: options.kid } : {}), ...(options.apu ? { apu: options.apu } : {}), ...(options.apv ? { apv: options.apv } : {}) };
  const protectedB64 = Buffer.from(JSON.stringify(header)).toString('base64url');
  const key = deriveKey(enc, ephemeral.privateKey.export({ format: 'jwk' }), recipientPublicJwk, options.apu, options.apv);
  const iv = randomBytes(12);
  const cipher = createCipheriv(gcm(enc), key, iv);
  cipher.setAAD(Buffer.from(protectedB64, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [protectedB64, '', iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** RFC 7518 4.6.2: Concat KDF (NIST SP 800-56A) over the ECDH secret, AlgorithmID = enc for direct agreement. */
export function deriveKey(enc: Enc, privateJwk: JsonWebKey, publicJwk: JsonWebKey, apu?: string, apv?: string): Buffer {
  let shared: Buffer;
  try {
    shared = diffieHellman({
      privateKey: createPrivateKey({ key: privateJwk, format: 'jwk' }),
      publicKey: createPublicKey({ key: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, y: publicJwk.y }, format: 'jwk' }),
    });
  } catch {
    throw new JweError('key agreement failed');
  }
  const lengthPrefixed = (bytes: Buffer) => Buffer.concat([uint32(bytes.length), bytes]);
  const otherInfo = Buffer.concat([
    lengthPrefixed(Buffer.from(enc, 'ascii')),
    lengthPrefixed(apu ? Buffer.from(apu, 'base64url') : Buffer.alloc(0)),
    lengthPrefixed(apv ? Buffer.from(apv, 'base64url') : Buffer.alloc(0)),
    uint32(KEY_BYTES[enc] * 8),
  ]);
  // One SHA-256 round gives 32 bytes, enough for both key sizes.
  return createHash('sha256').update(Buffer.concat([uint32(1), shared, otherInfo])).digest().subarray(0, KEY_BYTES[enc]);
}

function uint32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}

function gcm(enc: Enc): 'aes-128-gcm' | 'aes-256-gcm' {
  return enc === 'A128GCM' ? 'aes-128-gcm' : 'aes-256-gcm';
}

function curveName(crv: string | undefined): string {
  if (crv === 'P-256') return 'prime256v1';
  if (crv === 'P-384') return 'secp384r1';
  throw new JweError('unsupported curve');
}
