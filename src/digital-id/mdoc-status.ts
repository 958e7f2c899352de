import { verify, type X509Certificate } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { cborDecode } from '@animo-id/mdoc';
import { checkChainNotRevoked, type CrlFetcher } from './crl-check';
import { DigitalIdVerificationError } from './digital-id.errors';
import { validateCertificateChain, type ValidatedChain } from './x509-chain';

/** Fetches a status list token (CWT bytes) by URI; any throw makes the check an error (status_unavailable). */
export type StatusListCwtFetcher = (uri: string) => Promise<Uint8Array>;

type Sign1Like = { readonly payload: Uint8Array; readonly x5chain?: Uint8Array[]; getRawVerificationData(): { alg: string; signature: Uint8Array; data: Uint8Array } };

const CURVES: Record<string, { hash: string; curve: string }> = {
  ES256: { hash: 'sha256', curve: 'prime256v1' },
  ES384: { hash: 'sha384', curve: 'secp384r1' },
  ES512: { hash: 'sha512', curve: 'secp521r1' },
};
/** CWT claim keys of the Token Status List (IETF draft-ietf-oauth-status-list): sub, exp, status_list. */
const SUB = 2;
const EXP = 4;
const STATUS_LIST = 65533;

/**
 * The MSO's status (ISO/IEC 18013-5 2nd edition with the IETF Token Status List): when the MSO names
 * `status.status_list { idx, uri }`, the list token (a CWT) is fetched, its signature checked (its own
 * x5chain to a trusted IACA, else the document signer's key), its `sub` must be the URI and `exp` not past,
 * and the entry read: 0 passes, anything else is `credential_revoked`. A list that cannot be fetched or
 * trusted is `status_unavailable` (an error, never a pass), and so is a status this service cannot read (an
 * `identifier_list`, or a status of another shape). A list signed under its own x5chain has that chain's CRLs
 * checked as the document signer's are (crl-check.ts): a listed signer is `status_list_signer_revoked`, a CRL
 * that cannot be had `revocation_unavailable` (an error). The steps verified: none when the MSO names no status.
 */
export async function checkMsoStatus(input: {
  mso: Record<string, unknown>;
  signer: X509Certificate;
  trustedRoots: readonly Uint8Array[];
  now: Date;
  fetch?: StatusListCwtFetcher;
  fetchCrl?: CrlFetcher;
}): Promise<readonly string[]> {
  const status = input.mso.status;
  if (status === undefined) return [];
  const list = status instanceof Map ? status.get('status_list') : undefined;
  const idx = list instanceof Map ? list.get('idx') : undefined;
  const uri = list instanceof Map ? list.get('uri') : undefined;
  if (typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0 || typeof uri !== 'string') {
    throw new DigitalIdVerificationError('status_unavailable', 'the MSO names a status this service cannot read (only status_list is read)');
  }
  if (!input.fetch) throw new DigitalIdVerificationError('status_unavailable', 'no status list fetcher is configured');
  let token: Sign1Like;
  try {
    const decoded = cborDecode(await input.fetch(uri)) as Sign1Like;
    if (typeof decoded?.getRawVerificationData !== 'function') throw new Error('not a COSE_Sign1');
    token = decoded;
  } catch {
    throw new DigitalIdVerificationError('status_unavailable', 'the status list could not be fetched or read');
  }
  const own = chainOf(token, input);
  const key = own?.signer ?? input.signer;
  let raw: { alg: string; signature: Uint8Array; data: Uint8Array };
  try {
    raw = token.getRawVerificationData();
  } catch {
    throw new DigitalIdVerificationError('status_unavailable', 'the status list names no supported algorithm');
  }
  const scheme = CURVES[raw.alg];
  if (!scheme || key.publicKey.asymmetricKeyDetails?.namedCurve !== scheme.curve || !verify(scheme.hash, raw.data, { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, raw.signature)) {
    throw new DigitalIdVerificationError('status_unavailable', 'the status list signature does not verify');
  }
  // A signer of its own is believed only while its CRLs do not list it; the document signer's were checked with its chain.
  const signerChecked = own !== null && own.signer.fingerprint256 !== input.signer.fingerprint256 && (await checkChainNotRevoked({ path: own.path, anchor: own.anchor, now: input.now, fetchCrl: input.fetchCrl, signerRole: 'the status list signer certificate', revokedReason: 'status_list_signer_revoked' }));
  const claims = readClaims(token.payload);
  if (claims.get(SUB) !== uri) throw new DigitalIdVerificationError('status_unavailable', 'the status list is not the one the MSO names');
  const exp = claims.get(EXP);
  if (typeof exp === 'number' && exp * 1000 <= input.now.getTime()) throw new DigitalIdVerificationError('status_unavailable', 'the status list has expired');
  if (entry(claims.get(STATUS_LIST), idx) !== 0) throw new DigitalIdVerificationError('credential_revoked', 'the status list marks this credential');
  return signerChecked ? ['status_signer_not_revoked', 'status'] : ['status'];
}

/** The list's own x5chain, validated to a trusted IACA; null when it has none (the document signer's key signs it). */
function chainOf(token: Sign1Like, input: { trustedRoots: readonly Uint8Array[]; now: Date }): ValidatedChain | null {
  if (!token.x5chain?.length) return null;
  try {
    return validateCertificateChain({ chain: token.x5chain, trustedRoots: input.trustedRoots, now: input.now });
  } catch {
    throw new DigitalIdVerificationError('status_unavailable', 'the status list signer is not trusted');
  }
}

function readClaims(payload: Uint8Array): Map<unknown, unknown> {
  try {
    const claims = cborDecode(payload);
    if (claims instanceof Map) return claims;
  } catch {
    /* below */
  }
  throw new DigitalIdVerificationError('status_unavailable', 'the status list payload is not a CWT claims map');
}

/** The entry at `idx`: `bits` per entry (1, 2, 4 or 8), least significant bits first, in the zlib-compressed `lst`. */
function entry(list: unknown, idx: number): number {
  const bits = list instanceof Map ? list.get('bits') : undefined;
  const lst = list instanceof Map ? list.get('lst') : undefined;
  if (![1, 2, 4, 8].includes(bits as number) || !(lst instanceof Uint8Array)) throw new DigitalIdVerificationError('status_unavailable', 'the status list is malformed');
  let bytes: Buffer;
  try {
    bytes = inflateSync(lst, { maxOutputLength: 16 * 1024 * 1024 });
  } catch {
    throw new DigitalIdVerificationError('status_unavailable', 'the status list does not decompress');
  }
  const bit = idx * (bits as number);
  if (bit >> 3 >= bytes.length) throw new DigitalIdVerificationError('status_unavailable', 'the status list has no entry at this index');
  return (bytes[bit >> 3] >> (bit & 7)) & ((1 << (bits as number)) - 1);
}
