import { createECDH, createHash, createHmac, createPrivateKey, createPublicKey, hkdfSync, randomBytes, sign, timingSafeEqual, verify, X509Certificate, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { MdocContext } from '@animo-id/mdoc';
import { validateCertificateChain } from './x509-chain';

/**
 * @animo-id/mdoc brings the CBOR/COSE structures and leaves the cryptography to its caller; this is that
 * cryptography on node:crypto. Chain validation goes through validateCertificateChain, so mdoc and SD-JWT VC
 * issuers are judged by the same rules.
 */
export function nodeMdocContext(options: { now: Date; requiredSignerEku?: string }): MdocContext {
  return {
    crypto: {
      random: (length) => new Uint8Array(randomBytes(length)),
      digest: ({ digestAlgorithm, bytes }) => new Uint8Array(createHash(digestAlgorithm.replace('-', '').toLowerCase()).update(bytes).digest()),
      calculateEphemeralMacKeyJwk: ({ privateKey, publicKey, sessionTranscriptBytes }) => {
        // ISO 18013-5 9.1.3.5: EMacKey = HKDF-SHA256(ECDH(priv, pub), salt = SHA-256(SessionTranscriptBytes), "EMacKey").
        const ecdh = createECDH(curveForPoint(publicKey));
        ecdh.setPrivateKey(Buffer.from(privateKey));
        const shared = ecdh.computeSecret(Buffer.from(publicKey));
        const salt = createHash('sha256').update(sessionTranscriptBytes).digest();
        const key = Buffer.from(hkdfSync('sha256', shared, salt, Buffer.from('EMacKey'), 32));
        return { kty: 'oct', k: key.toString('base64url') };
      },
    },
    cose: {
      sign1: {
        sign: ({ sign1, jwk }) => {
          const { data, alg } = sign1.getRawSigningData();
          return new Uint8Array(sign(hashFor(alg), data, { key: keyFromJwk(jwk, true), dsaEncoding: 'ieee-p1363' }));
        },
        verify: ({ sign1, jwk, options }) => {
          const { data, alg, signature } = sign1.getRawVerificationData(options);
          try {
            return verify(hashFor(alg), data, { key: keyFromJwk(jwk, false), dsaEncoding: 'ieee-p1363' }, signature);
          } catch {
            return false;
          }
        },
      },
      mac0: {
        sign: ({ mac0, jwk }) => {
          const { data, alg } = mac0.getRawSigningData();
          return new Uint8Array(createHmac(hmacHash(alg), Buffer.from(jwk.k ?? '', 'base64url')).update(data).digest());
        },
        verify: ({ mac0, jwk, options }) => {
          const { data, alg, signature } = mac0.getRawVerificationData(options);
          const expected = createHmac(hmacHash(alg), Buffer.from(jwk.k ?? '', 'base64url')).update(data).digest();
          return expected.length === signature.length && timingSafeEqual(expected, Buffer.from(signature));
        },
      },
    },
    x509: {
      getIssuerNameField: ({ certificate, field }) => nameField(new X509Certificate(Buffer.from(certificate)).subject, field),
      getPublicKey: ({ certificate }) => new X509Certificate(Buffer.from(certificate)).publicKey.export({ format: 'jwk' }) as never,
      validateCertificateChain: ({ trustedCertificates, x5chain }) => {
        validateCertificateChain({ chain: x5chain, trustedRoots: trustedCertificates, now: options.now, requiredSignerEku: options.requiredSignerEku });
      },
      getCertificateData: ({ certificate }) => {
        const x509 = new X509Certificate(Buffer.from(certificate));
        return {
          issuerName: x509.issuer.split('\n').join(', '),
          subjectName: x509.subject.split('\n').join(', '),
          serialNumber: x509.serialNumber,
          thumbprint: x509.fingerprint256.replaceAll(':', '').toLowerCase(),
          notBefore: new Date(x509.validFrom),
          notAfter: new Date(x509.validTo),
          pem: x509.toString(),
        };
      },
    },
  };
}

/** COSE and JOSE algorithm names to node:crypto's: ECDSA hashes by curve size, EdDSA hashes itself. */
function hashFor(alg: string): string | null {
  switch (alg) {
    case 'ES256':
      return 'sha256';
    case 'ES384':
      return 'sha384';
    case 'ES512':
      return 'sha512';
    case 'EdDSA':
      return null;
    default:
      throw new Error(`unsupported signature algorithm ${alg}`);
  }
}

function hmacHash(alg: string): string {
  return { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg] ?? 'sha256';
}

export function keyFromJwk(jwk: JsonWebKey, privateKey: boolean): KeyObject {
  if (privateKey) return createPrivateKey({ key: jwk, format: 'jwk' });
  const { d: _d, ...publicJwk } = jwk;
  return createPublicKey({ key: publicJwk, format: 'jwk' });
}

/** An uncompressed EC point's length gives its curve. */
function curveForPoint(point: Uint8Array): string {
  if (point.length === 65) return 'prime256v1';
  if (point.length === 97) return 'secp384r1';
  if (point.length === 133) return 'secp521r1';
  throw new Error('unsupported device key curve');
}

function nameField(name: string, field: string): string[] {
  return name
    .split('\n')
    .filter((part) => part.startsWith(`${field}=`))
    .map((part) => part.slice(field.length + 1));
}
