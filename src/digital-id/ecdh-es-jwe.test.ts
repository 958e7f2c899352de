import { generateKeyPairSync } from 'node:crypto';
import { decryptEcdhEsJwe, deriveKey, encryptEcdhEsJwe, JweError } from './ecdh-es-jwe';

describe('ECDH-ES JWE', () => {
  it('derives the key of RFC 7518 Appendix C', () => {
    const bob = { kty: 'EC', crv: 'P-256', x: 'weNJy2HscCSM6AEDTDg04biOvhFhyyWvOHQfeF_PxMQ', y: 'e8lnCO-AlStT-NJVX-crhB7QRYhiix03illJOVAOyck', d: 'VEmDZpDXXK8p8N0Cndsxs924q6nS1RXFASRl6BfUqdw' };
    const aliceEphemeral = { kty: 'EC', crv: 'P-256', x: 'gI0GAILBdu7T53akrFmMyGcsF3n5dO7MmwNBHKW5SV0', y: 'SLW_xSffzlPWrHEVI30DHM_4egVwt3NQqeUD7nMFpps' };
    const key = deriveKey('A128GCM', bob, aliceEphemeral, Buffer.from('Alice').toString('base64url'), Buffer.from('Bob').toString('base64url'));
    expect(key.toString('base64url')).toBe('VqqN6vgjbSBcIijNcacQGg');
  });

  it('decrypts what it encrypted to a P-256 key, and nothing else', () => {
    const recipient = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const privateJwk = recipient.privateKey.export({ format: 'jwk' });
    const jwe = encryptEcdhEsJwe(Buffer.from('{"vp_token":{}}'), recipient.publicKey.export({ format: 'jwk' }));
    expect(decryptEcdhEsJwe(jwe, privateJwk).toString()).toBe('{"vp_token":{}}');

    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'jwk' });
    expect(() => decryptEcdhEsJwe(jwe, other)).toThrow(JweError);
    const parts = jwe.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => decryptEcdhEsJwe(parts.join('.'), privateJwk)).toThrow(JweError);
    expect(() => decryptEcdhEsJwe('a.b.c', privateJwk)).toThrow(JweError);
  });
});
