import { createHash, createPrivateKey, sign, X509Certificate, type KeyObject } from 'node:crypto';

/**
 * The verifier's own key and certificate, which sign OpenID4VP requests (D24, docs/digital-ids.md,
 * "Signed requests"): a JWT-secured authorization request (RFC 9101, `typ: oauth-authz-req+jwt`) with the
 * certificate chain in `x5c`, so a wallet can show the person who is asking and refuse a request that was
 * altered or that names another verifier. OpenID4VP 1.0 section 5.9.3 binds the client identifier to the
 * certificate by one of two prefixes:
 * - `x509_san_dns:<dns name>`: a dNSName of the leaf certificate; the wallet also requires the host of the
 *   response URI to be that name, so the name must be the host of PUBLIC_BASE_URL;
 * - `x509_hash:<base64url SHA-256 of the leaf certificate's DER>`: no name needed.
 * Signing is JWS compact serialisation with `node:crypto` (ES256/384/512 in the raw r||s form JWS wants):
 * `jose` 6 and `@openid4vc/openid4vp` are ES-module-only, which this CommonJS service cannot load.
 */

export type ClientIdPrefix = 'x509_san_dns' | 'x509_hash';
export const CLIENT_ID_PREFIXES: readonly ClientIdPrefix[] = ['x509_san_dns', 'x509_hash'];

export interface VerifierSigningConfig {
  /** PKCS#8 (or SEC1) PEM of an EC private key, or the base64 of that PEM. */
  readonly key: string;
  /** The certificate chain, leaf first, as PEM (or its base64); the root may be left out. */
  readonly certificate: string;
  readonly clientIdPrefix: ClientIdPrefix;
}

export class VerifierSigningKeyError extends Error {}

const ALGORITHMS: Record<string, { alg: string; hash: string }> = {
  prime256v1: { alg: 'ES256', hash: 'sha256' },
  secp384r1: { alg: 'ES384', hash: 'sha384' },
  secp521r1: { alg: 'ES512', hash: 'sha512' },
};

export class VerifierSigningKey {
  private constructor(
    private readonly key: KeyObject,
    private readonly algorithm: { alg: string; hash: string },
    /** base64 (not url) DER of each certificate, leaf first: the JWS `x5c` header. */
    readonly x5c: readonly string[],
    /** The client identifier with its prefix, e.g. `x509_san_dns:verify.example.org`. */
    readonly clientId: string,
    readonly clientIdPrefix: ClientIdPrefix,
    readonly leaf: X509Certificate,
  ) {}

  /**
   * Reads and checks the configured key and certificate: the key must be the leaf's, the leaf an end-entity
   * certificate valid now, and for `x509_san_dns` the host of `publicBaseUrl` one of its dNSNames (the
   * response URI lives there). Any mismatch is a VerifierSigningKeyError naming it, at start, not at the
   * first wallet.
   */
  static load(config: VerifierSigningConfig, publicBaseUrl: string, now: Date = new Date()): VerifierSigningKey {
    let key: KeyObject;
    try {
      key = createPrivateKey(pemOrBase64(config.key));
    } catch {
      throw new VerifierSigningKeyError('DIGITAL_ID_VERIFIER_KEY is not a PEM private key (or the base64 of one)');
    }
    const curve = key.asymmetricKeyType === 'ec' ? key.asymmetricKeyDetails?.namedCurve : undefined;
    const algorithm = curve ? ALGORITHMS[curve] : undefined;
    if (!algorithm) throw new VerifierSigningKeyError('DIGITAL_ID_VERIFIER_KEY must be an EC key on P-256, P-384 or P-521 (ES256/384/512)');

    const blocks = pemOrBase64(config.certificate).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) throw new VerifierSigningKeyError('DIGITAL_ID_VERIFIER_CERTIFICATE holds no PEM certificate');
    let chain: X509Certificate[];
    try {
      chain = blocks.map((pem) => new X509Certificate(pem));
    } catch {
      throw new VerifierSigningKeyError('DIGITAL_ID_VERIFIER_CERTIFICATE holds a certificate that does not parse');
    }
    const leaf = chain[0];
    if (!leaf.checkPrivateKey(key)) throw new VerifierSigningKeyError('DIGITAL_ID_VERIFIER_KEY is not the key of the first certificate of DIGITAL_ID_VERIFIER_CERTIFICATE');
    if (leaf.ca) throw new VerifierSigningKeyError('DIGITAL_ID_VERIFIER_CERTIFICATE must start with the verifier (end-entity) certificate, not a CA');
    if (new Date(leaf.validFrom) > now || new Date(leaf.validTo) <= now) {
      throw new VerifierSigningKeyError(`DIGITAL_ID_VERIFIER_CERTIFICATE is not valid now (${leaf.validFrom} to ${leaf.validTo})`);
    }
    for (let i = 0; i + 1 < chain.length; i++) {
      if (!chain[i].checkIssued(chain[i + 1]) || !chain[i].verify(chain[i + 1].publicKey)) {
        throw new VerifierSigningKeyError(`DIGITAL_ID_VERIFIER_CERTIFICATE: certificate ${i + 1} is not issued by certificate ${i + 2} (leaf first)`);
      }
    }

    let clientId: string;
    if (config.clientIdPrefix === 'x509_san_dns') {
      const host = new URL(publicBaseUrl).hostname;
      if (!dnsNames(leaf).includes(host)) {
        throw new VerifierSigningKeyError(
          `DIGITAL_ID_VERIFIER_CLIENT_ID_PREFIX x509_san_dns needs the host of PUBLIC_BASE_URL (${host}) among the certificate's DNS names (${dnsNames(leaf).join(', ') || 'none'}); use x509_hash or a certificate for that name`,
        );
      }
      clientId = `x509_san_dns:${host}`;
    } else {
      clientId = `x509_hash:${x509Hash(leaf.raw)}`;
    }
    return new VerifierSigningKey(key, algorithm, chain.map((c) => c.raw.toString('base64')), clientId, config.clientIdPrefix, leaf);
  }

  /** A signed request object: JWS compact, header `{ alg, typ: oauth-authz-req+jwt, x5c }`. */
  signRequestObject(payload: Record<string, unknown>): string {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signingInput = `${encode({ alg: this.algorithm.alg, typ: 'oauth-authz-req+jwt', x5c: this.x5c })}.${encode(payload)}`;
    const signature = sign(this.algorithm.hash, Buffer.from(signingInput), { key: this.key, dsaEncoding: 'ieee-p1363' });
    return `${signingInput}.${signature.toString('base64url')}`;
  }
}

/** OpenID4VP 1.0 5.9.3: base64url (no padding) of the SHA-256 of the DER certificate. */
export function x509Hash(der: Uint8Array): string {
  return createHash('sha256').update(der).digest('base64url');
}

/** The certificate's subjectAltName dNSName entries. */
export function dnsNames(certificate: X509Certificate): string[] {
  return (certificate.subjectAltName ?? '')
    .split(/,\s*/)
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4).trim().toLowerCase());
}

/** A PEM as given, or decoded from base64 (an environment variable cannot always hold newlines). */
function pemOrBase64(value: string): string {
  const trimmed = value.trim();
  return trimmed.startsWith('-----BEGIN') ? trimmed : Buffer.from(trimmed, 'base64').toString('utf8');
}
