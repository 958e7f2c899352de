import { createHash, createPublicKey, verify as verifySignature, X509Certificate, type JsonWebKey, type KeyObject } from 'node:crypto';
import { SDJwt } from '@sd-jwt/core';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { checkChainNotRevoked, type CrlFetcher } from './crl-check';
import { DigitalIdVerificationError } from './digital-id.errors';
import type { RequestedCredential, VerifiedDigitalId } from './verified-digital-id';
import { issuerDisplayName, validateCertificateChain, type ValidatedChain } from './x509-chain';

/** An issuer key the trust store holds directly (SD-JWT VC issuers without x5c, keyed by `iss`). */
export interface TrustedIssuerKey {
  readonly issuer: string;
  readonly jwk: JsonWebKey;
}

export interface SdJwtVcVerificationInput {
  /** The compact presentation: `<issuer-signed JWT>~<disclosure>~...~<KB-JWT>`. */
  readonly presentation: string;
  /** The nonce of the request the wallet answered. */
  readonly nonce: string;
  /** The audience the KB-JWT must name: the request's client_id. */
  readonly audience: string;
  /** DER of the roots an `x5c` chain may end at. */
  readonly trustedRoots: readonly Uint8Array[];
  readonly trustedIssuerKeys?: readonly TrustedIssuerKey[];
  readonly now: Date;
  readonly requested: readonly RequestedCredential[];
  /** Fetches a status list token by URI; any throw makes the check an error (status_unavailable). */
  readonly fetchStatusList?: (uri: string) => Promise<string>;
  /** Fetches the CRLs the x5c chain names; without it a named CRL makes the check an error (crl-check.ts). */
  readonly fetchCrl?: CrlFetcher;
  /** How old a KB-JWT may be: it is made for this request, so minutes, not days. */
  readonly maxKeyBindingAgeSeconds?: number;
}

const ACCEPTED_TYP = new Set(['dc+sd-jwt', 'vc+sd-jwt']);
const CLOCK_SKEW_SECONDS = 60;

/**
 * Verifies an SD-JWT VC presentation (RFC 9901, draft-ietf-oauth-sd-jwt-vc), each failure named: the
 * type (`typ`, `vct`), the issuer key (x5c to a trusted root, or a key the trust store holds for `iss`),
 * the issuer signature, `exp`/`nbf`, every disclosure's digest in the signed payload, that only requested
 * claims were disclosed, the key-binding JWT (cnf key, nonce, audience, sd_hash, freshness), and the
 * status list entry when the credential names one.
 */
export async function verifySdJwtVcPresentation(input: SdJwtVcVerificationInput): Promise<VerifiedDigitalId> {
  const verified: string[] = [];
  const parts = splitPresentation(input.presentation);
  const header = decodeSegment(parts.issuerJwt.split('.')[0]);
  const payload = decodeSegment(parts.issuerJwt.split('.')[1]);

  if (!ACCEPTED_TYP.has(String(header.typ))) throw new DigitalIdVerificationError('unsupported_format', 'the JWT typ is not dc+sd-jwt');
  const request = input.requested.find((r) => r.format === 'dc+sd-jwt' && r.credentialType === payload.vct);
  if (!request) throw new DigitalIdVerificationError('unexpected_doctype', 'the vct was not requested');
  verified.push('vct');

  const issuer = resolveIssuerKey(header, payload, input);
  verified.push('issuer_chain');
  if (issuer.chain && (await checkChainNotRevoked({ ...issuer.chain, now: input.now, fetchCrl: input.fetchCrl, signerRole: 'the issuer certificate' }))) verified.push('issuer_not_revoked');
  if (!verifyJws(parts.issuerJwt, String(header.alg), issuer.key)) {
    throw new DigitalIdVerificationError('issuer_signature_invalid', 'the issuer signature does not verify');
  }
  verified.push('issuer_signature');

  const nowSeconds = Math.floor(input.now.getTime() / 1000);
  if (typeof payload.exp === 'number' && payload.exp + CLOCK_SKEW_SECONDS < nowSeconds) {
    throw new DigitalIdVerificationError('credential_expired', 'exp has passed');
  }
  if (typeof payload.nbf === 'number' && payload.nbf - CLOCK_SKEW_SECONDS > nowSeconds) {
    throw new DigitalIdVerificationError('credential_not_yet_valid', 'nbf is in the future');
  }
  verified.push('validity');

  const claims = await disclosedClaims(input.presentation, parts, payload, request);
  verified.push('digests', 'requested_elements_only');

  checkKeyBinding(parts, payload, input, nowSeconds);
  verified.push('key_binding');

  if (payload.status !== undefined) verified.push(...(await checkStatus(payload.status, issuer, input)));

  return {
    format: 'dc+sd-jwt',
    credentialType: String(payload.vct),
    issuer: { name: issuer.name, country: issuer.country },
    claims,
    validUntil: typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : null,
    verified,
  };
}

interface PresentationParts {
  readonly issuerJwt: string;
  readonly disclosures: readonly string[];
  /** Everything before the KB-JWT, ending with `~`: what sd_hash covers. */
  readonly withoutKeyBinding: string;
  readonly keyBindingJwt: string | null;
}

function splitPresentation(presentation: string): PresentationParts {
  const segments = presentation.trim().split('~');
  if (segments.length < 2 || segments[0].split('.').length !== 3) {
    throw new DigitalIdVerificationError('malformed_presentation', 'not a compact SD-JWT presentation');
  }
  const last = segments[segments.length - 1];
  return {
    issuerJwt: segments[0],
    disclosures: segments.slice(1, -1),
    withoutKeyBinding: segments.slice(0, -1).join('~') + '~',
    keyBindingJwt: last.length > 0 ? last : null,
  };
}

function decodeSegment(segment: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new DigitalIdVerificationError('malformed_presentation', 'a JWT segment is not a JSON object');
}

interface ResolvedIssuer {
  readonly key: KeyObject;
  readonly name: string;
  readonly country: string | null;
  /** The validated x5c chain, whose certificates' CRLs are checked; null for a key held in the trust store. */
  readonly chain: { path: readonly X509Certificate[]; anchor: X509Certificate } | null;
}

function resolveIssuerKey(header: Record<string, unknown>, payload: Record<string, unknown>, input: SdJwtVcVerificationInput): ResolvedIssuer {
  if (Array.isArray(header.x5c) && header.x5c.length > 0) {
    const chain = header.x5c.map((entry) => new Uint8Array(Buffer.from(String(entry), 'base64')));
    const { signer, anchor, path } = validateCertificateChain({ chain, trustedRoots: input.trustedRoots, now: input.now });
    return { key: signer.publicKey, name: issuerDisplayName(signer), country: countryOf(signer), chain: { path, anchor } };
  }
  const trusted = input.trustedIssuerKeys?.find((candidate) => candidate.issuer === payload.iss);
  if (!trusted) throw new DigitalIdVerificationError('untrusted_issuer', 'the issuer has no x5c and no trusted key');
  return { key: createPublicKey({ key: trusted.jwk, format: 'jwk' }), name: String(payload.iss), country: null, chain: null };
}

function verifyJws(compact: string, alg: string, key: KeyObject): boolean {
  const [headerPart, payloadPart, signaturePart] = compact.split('.');
  const hash = { ES256: 'sha256', ES384: 'sha384', ES512: 'sha512', EdDSA: null }[alg];
  if (hash === undefined) return false;
  try {
    return verifySignature(hash, Buffer.from(`${headerPart}.${payloadPart}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signaturePart, 'base64url'));
  } catch {
    return false;
  }
}

/**
 * RFC 9901 7.1: every disclosure's digest must appear in the signed payload or in another disclosure.
 * The claims then come from @sd-jwt/core's unpacking. A top-level claim the request did not name is
 * refused rather than silently dropped: a wallet that over-discloses is not behaving as asked.
 */
async function disclosedClaims(
  presentation: string,
  parts: PresentationParts,
  payload: Record<string, unknown>,
  request: RequestedCredential,
): Promise<Record<string, unknown>> {
  const alg = String(payload._sd_alg ?? 'sha-256');
  if (alg !== 'sha-256') throw new DigitalIdVerificationError('unsupported_format', `_sd_alg ${alg.slice(0, 16)} is not supported`);
  const digestOf = (text: string) => createHash('sha256').update(text).digest('base64url');

  const referenced = new Set<string>();
  const topLevel = new Set<string>();
  collectDigests(payload, referenced, topLevel, true);
  const decoded = parts.disclosures.map((encoded) => {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    } catch {
      throw new DigitalIdVerificationError('malformed_presentation', 'a disclosure is not JSON');
    }
    if (!Array.isArray(value) || value.length < 2 || value.length > 3) {
      throw new DigitalIdVerificationError('malformed_presentation', 'a disclosure is not a salt/name/value array');
    }
    collectDigests(value[value.length - 1], referenced, new Set(), false);
    return { digest: digestOf(encoded), name: value.length === 3 ? String(value[1]) : null };
  });
  for (const disclosure of decoded) {
    if (!referenced.has(disclosure.digest)) {
      throw new DigitalIdVerificationError('digest_mismatch', 'a disclosure is not covered by the issuer signature');
    }
    if (topLevel.has(disclosure.digest) && (disclosure.name === null || !request.elements.includes(disclosure.name))) {
      throw new DigitalIdVerificationError('element_not_requested', `claim ${safeLabel(disclosure.name)} was not requested`);
    }
  }

  const sdJwt = await SDJwt.fromEncode(presentation, async (data, hashAlg) => {
    if (hashAlg !== 'sha-256') throw new Error('unsupported hash');
    return new Uint8Array(createHash('sha256').update(typeof data === 'string' ? data : Buffer.from(data)).digest());
  });
  const claims = await sdJwt.getClaims<Record<string, unknown>>(async (data) =>
    new Uint8Array(createHash('sha256').update(typeof data === 'string' ? data : Buffer.from(data)).digest()),
  );
  for (const registered of ['iss', 'iat', 'exp', 'nbf', 'vct', 'cnf', 'status', 'sub', '_sd_alg', 'vct#integrity']) delete claims[registered];
  return claims;
}

/** Gathers `_sd` digests and `{"...": digest}` array entries; `topLevel` collects those of the payload itself. */
function collectDigests(value: unknown, into: Set<string>, topLevel: Set<string>, isRoot: boolean): void {
  if (Array.isArray(value)) {
    for (const element of value) {
      if (element && typeof element === 'object' && !Array.isArray(element) && typeof (element as Record<string, unknown>)['...'] === 'string') {
        into.add((element as Record<string, string>)['...']);
      } else {
        collectDigests(element, into, new Set(), false);
      }
    }
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    if (key === '_sd' && Array.isArray(child)) {
      for (const digest of child) {
        into.add(String(digest));
        if (isRoot) topLevel.add(String(digest));
      }
    } else {
      collectDigests(child, into, new Set(), false);
    }
  }
}

function checkKeyBinding(parts: PresentationParts, payload: Record<string, unknown>, input: SdJwtVcVerificationInput, nowSeconds: number): void {
  if (!parts.keyBindingJwt) throw new DigitalIdVerificationError('key_binding_missing', 'the presentation has no key-binding JWT');
  const cnf = payload.cnf as { jwk?: JsonWebKey } | undefined;
  if (!cnf?.jwk) throw new DigitalIdVerificationError('key_binding_invalid', 'the credential names no holder key (cnf.jwk)');
  const header = decodeSegment(parts.keyBindingJwt.split('.')[0]);
  const claims = decodeSegment(parts.keyBindingJwt.split('.')[1]);
  if (header.typ !== 'kb+jwt') throw new DigitalIdVerificationError('key_binding_invalid', 'the key-binding JWT typ is not kb+jwt');

  let holderKey: KeyObject;
  try {
    holderKey = createPublicKey({ key: cnf.jwk, format: 'jwk' });
  } catch {
    throw new DigitalIdVerificationError('key_binding_invalid', 'the holder key cannot be read');
  }
  if (!verifyJws(parts.keyBindingJwt, String(header.alg), holderKey)) {
    throw new DigitalIdVerificationError('key_binding_invalid', 'the key-binding signature does not verify with the holder key');
  }
  if (claims.nonce !== input.nonce) throw new DigitalIdVerificationError('nonce_mismatch', "the key-binding JWT carries another request's nonce");
  if (claims.aud !== input.audience) throw new DigitalIdVerificationError('audience_mismatch', 'the key-binding JWT names another audience');
  const sdHash = createHash('sha256').update(parts.withoutKeyBinding).digest('base64url');
  if (claims.sd_hash !== sdHash) throw new DigitalIdVerificationError('key_binding_invalid', 'sd_hash does not cover these disclosures');
  const iat = typeof claims.iat === 'number' ? claims.iat : NaN;
  const maxAge = input.maxKeyBindingAgeSeconds ?? 300;
  if (!(iat <= nowSeconds + CLOCK_SKEW_SECONDS && iat >= nowSeconds - maxAge)) {
    throw new DigitalIdVerificationError('key_binding_invalid', 'the key-binding JWT was not made for this request (iat)');
  }
}

/**
 * Token Status List (draft-ietf-oauth-status-list): the list is fetched, its signature checked with the
 * credential issuer's key or its own x5c (validated like the issuer's, and its CRLs checked as the issuer's
 * are: a listed signer is `status_list_signer_revoked`, a CRL that cannot be had `revocation_unavailable`),
 * and the entry read. 0 is valid; anything else (revoked, suspended) refuses. A list the service cannot
 * fetch or trust is an error, never a pass. The steps verified.
 */
async function checkStatus(status: unknown, issuer: ResolvedIssuer, input: SdJwtVcVerificationInput): Promise<readonly string[]> {
  const reference = (status as { status_list?: { idx?: unknown; uri?: unknown } } | null)?.status_list;
  if (!reference || typeof reference.idx !== 'number' || typeof reference.uri !== 'string') {
    throw new DigitalIdVerificationError('malformed_presentation', 'the status claim is not a status_list reference');
  }
  if (!input.fetchStatusList) throw new DigitalIdVerificationError('status_unavailable', 'no status list fetcher is configured');
  let token: string;
  try {
    token = (await input.fetchStatusList(reference.uri)).trim();
  } catch {
    throw new DigitalIdVerificationError('status_unavailable', 'the status list could not be fetched');
  }
  let own: ValidatedChain | null;
  try {
    const header = decodeSegment(token.split('.')[0]);
    own = statusListChain(header, input);
    if (!verifyJws(token, String(header.alg), own?.signer.publicKey ?? issuer.key)) throw new Error('signature');
  } catch {
    throw new DigitalIdVerificationError('status_unavailable', 'the status list could not be verified');
  }
  // A signer of its own is believed only while its CRLs do not list it; the issuer certificate's were checked with its chain.
  const signerChecked =
    own !== null &&
    own.signer.fingerprint256 !== issuer.chain?.path[0]?.fingerprint256 &&
    (await checkChainNotRevoked({ path: own.path, anchor: own.anchor, now: input.now, fetchCrl: input.fetchCrl, signerRole: 'the status list signer certificate', revokedReason: 'status_list_signer_revoked' }));
  let entry: number;
  try {
    const claims = decodeSegment(token.split('.')[1]);
    if (claims.sub !== reference.uri) throw new Error('subject');
    entry = getListFromStatusListJWT(token).getStatus(reference.idx);
  } catch {
    throw new DigitalIdVerificationError('status_unavailable', 'the status list could not be verified');
  }
  if (entry !== 0) throw new DigitalIdVerificationError('credential_revoked', `the status list marks the credential (${entry})`);
  return signerChecked ? ['status_signer_not_revoked', 'status'] : ['status'];
}

/** A status list may carry its own x5c, validated like the issuer's; without one the issuer's key signs it (null). */
function statusListChain(header: Record<string, unknown>, input: SdJwtVcVerificationInput): ValidatedChain | null {
  if (!Array.isArray(header.x5c) || header.x5c.length === 0) return null;
  const chain = header.x5c.map((entry) => new Uint8Array(Buffer.from(String(entry), 'base64')));
  return validateCertificateChain({ chain, trustedRoots: input.trustedRoots, now: input.now });
}

function countryOf(certificate: X509Certificate): string | null {
  const part = certificate.subject.split('\n').find((p) => p.startsWith('C='));
  return part ? part.slice(2) : null;
}

function safeLabel(text: unknown): string {
  return String(text).replace(/[^\w.:-]/g, '?').slice(0, 64);
}
