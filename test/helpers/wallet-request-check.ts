import { createHash, verify, X509Certificate } from 'node:crypto';

/**
 * What a wallet checks of an OpenID4VP 1.0 request before it shows the person anything (section 5.9.3 and
 * Appendix A.3.2), written here independently of the service's signing code so that a mistake there is not
 * mirrored: a signed request (`typ: oauth-authz-req+jwt`) verifies under the leaf of its `x5c`, the chain
 * ends at a verifier root the wallet trusts, and the client identifier is bound to that certificate
 * (`x509_san_dns:` a dNSName of it, with the response URI on that host; `x509_hash:` its SHA-256). An
 * unsigned request is only taken under `redirect_uri:` (cross device) or with no client_id (DC API).
 */

export type RequestRefusal =
  | 'request_malformed'
  | 'request_signature_invalid'
  | 'untrusted_verifier'
  | 'client_id_mismatch'
  | 'unsigned_request_not_allowed'
  | 'origin_not_expected';

export class RequestRefused extends Error {
  constructor(
    readonly reason: RequestRefusal,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export interface RequestCheck {
  /** PEM roots the wallet trusts for verifiers (a reader trust list). */
  readonly trustedVerifierRoots: readonly string[];
  /** Cross device: the client_id of the `openid4vp://` link, which the request object must repeat. */
  readonly clientIdFromLink?: string;
  /** Same device: the origin the browser reports, which a signed request must list in `expected_origins`. */
  readonly origin?: string;
  readonly now?: Date;
}

const HASHES: Record<string, string> = { ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

/** The request object's claims once every check passed; throws RequestRefused naming the first that failed. */
export function checkRequestObject(jwt: string, check: RequestCheck): Record<string, unknown> & { client_id?: string } {
  const parts = jwt.split('.');
  if (parts.length !== 3) throw new RequestRefused('request_malformed', 'not a compact JWT');
  let header: { alg?: string; typ?: string; x5c?: unknown };
  let payload: Record<string, unknown> & { client_id?: string; response_uri?: string; expected_origins?: unknown };
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw new RequestRefused('request_malformed', 'header or payload is not JSON');
  }
  const clientId = typeof payload.client_id === 'string' ? payload.client_id : '';
  if (check.clientIdFromLink !== undefined && check.clientIdFromLink !== clientId) {
    throw new RequestRefused('client_id_mismatch', 'the request object names another client_id than the link');
  }
  const prefix = clientId.slice(0, clientId.indexOf(':'));

  if (header.alg === 'none') {
    if (prefix !== 'redirect_uri' || clientId !== `redirect_uri:${payload.response_uri}`) {
      throw new RequestRefused('unsigned_request_not_allowed', `an unsigned request under client_id ${clientId || '(none)'}`);
    }
    return payload;
  }

  if (header.typ !== 'oauth-authz-req+jwt') throw new RequestRefused('request_malformed', `typ ${header.typ}`);
  const hash = header.alg ? HASHES[header.alg] : undefined;
  if (!hash) throw new RequestRefused('request_signature_invalid', `alg ${header.alg}`);
  if (!Array.isArray(header.x5c) || header.x5c.length === 0) throw new RequestRefused('untrusted_verifier', 'no x5c');
  let chain: X509Certificate[];
  try {
    chain = header.x5c.map((b64) => new X509Certificate(Buffer.from(String(b64), 'base64')));
  } catch {
    throw new RequestRefused('untrusted_verifier', 'an x5c certificate does not parse');
  }
  const leaf = chain[0];
  const signatureOk = verify(hash, Buffer.from(`${parts[0]}.${parts[1]}`), { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2], 'base64url'));
  if (!signatureOk) throw new RequestRefused('request_signature_invalid', 'the signature does not verify under the x5c leaf');

  const now = check.now ?? new Date();
  for (const certificate of chain) {
    if (new Date(certificate.validFrom) > now || new Date(certificate.validTo) <= now) throw new RequestRefused('untrusted_verifier', `${certificate.subject} is not valid now`);
  }
  for (let i = 0; i + 1 < chain.length; i++) {
    if (!chain[i].checkIssued(chain[i + 1]) || !chain[i].verify(chain[i + 1].publicKey)) throw new RequestRefused('untrusted_verifier', 'the x5c chain is broken');
  }
  const roots = check.trustedVerifierRoots.map((pem) => new X509Certificate(pem));
  const last = chain[chain.length - 1];
  const anchored = roots.some((root) => root.raw.equals(last.raw) || (last.checkIssued(root) && last.verify(root.publicKey)));
  if (!anchored) throw new RequestRefused('untrusted_verifier', 'the x5c chain does not end at a trusted verifier root');

  if (prefix === 'x509_san_dns') {
    const name = clientId.slice('x509_san_dns:'.length);
    const names = (leaf.subjectAltName ?? '').split(/,\s*/).filter((e) => e.startsWith('DNS:')).map((e) => e.slice(4).toLowerCase());
    if (!names.includes(name.toLowerCase())) throw new RequestRefused('client_id_mismatch', `${name} is not a DNS name of the certificate`);
    if (typeof payload.response_uri === 'string' && new URL(payload.response_uri).hostname !== name.toLowerCase()) {
      throw new RequestRefused('client_id_mismatch', 'the response_uri is not on the client_id host');
    }
  } else if (prefix === 'x509_hash') {
    if (clientId.slice('x509_hash:'.length) !== createHash('sha256').update(leaf.raw).digest('base64url')) {
      throw new RequestRefused('client_id_mismatch', 'x509_hash is not the hash of the certificate');
    }
  } else {
    throw new RequestRefused('client_id_mismatch', `a signed request under client_id ${clientId || '(none)'}`);
  }

  if (check.origin !== undefined) {
    const expected = Array.isArray(payload.expected_origins) ? payload.expected_origins : [];
    if (!expected.includes(check.origin)) throw new RequestRefused('origin_not_expected', `${check.origin} is not among expected_origins`);
  }
  return payload;
}
