import { createHash, timingSafeEqual } from 'node:crypto';
import { isSignedBy, isValidAt, ParsedCertificate, parseCertificate } from './certificate.parser';
import { HASH_BY_OID, HashName, Oid } from './chip.oids';
import { CscaTrustStore, documentSignerLookup } from './csca.trust-store';
import { decodeOid, isUniversal, octetStringValue, Tag } from './der.reader';
import { parseMrz } from './mrz.parser';
import {
  CertificateSummary,
  DataGroupHashResult,
  PassiveAuthenticationResult,
  Verdict,
} from './passive-authentication.types';
import { signedAttribute, signingTimeOf, SignerInfo, SignedData } from './signed-data.parser';
import { parseSod } from './sod.parser';
import { verifyCmsSignature } from './signature.verifier';

export interface PassiveAuthenticationInput {
  /** EF.SOD as read from the chip (0x77 wrapper included). */
  readonly sod: Buffer;
  /** Data group files as read, outer tag included, keyed by number 1-16. */
  readonly dataGroups: ReadonlyMap<number, Buffer>;
  readonly trustStore: CscaTrustStore;
  /** Validity instant used when the SOD has no signingTime. @default new Date() */
  readonly now?: Date;
}

const SUCCEEDED: Verdict = { status: 'succeeded' };

/**
 * ICAO 9303-11 Passive Authentication. Throws ChipInputError (`malformed_sod`) only when EF.SOD
 * cannot be parsed; every other problem is reported in the verdicts.
 */
export async function verifyPassiveAuthentication(input: PassiveAuthenticationInput): Promise<PassiveAuthenticationResult> {
  const sod = parseSod(input.sod);
  const { signedData, signerInfo, lds } = sod;
  const signingTime = signingTimeOf(signerInfo);
  const validatedAt = signingTime ?? input.now ?? new Date();

  const signer = findDocumentSigner(signedData, signerInfo);
  const dsSignature = verifyDsSignature(signedData, signerInfo, signer);

  const chainResult = signer.certificate
    ? await verifyChain(signer.certificate, input.trustStore, validatedAt)
    : { verdict: { status: 'not_checked', reason: 'ds_certificate_not_found' } as Verdict, csca: null };

  const hashes = compareDataGroupHashes(lds.hashName, lds.dataGroupHashes, input.dataGroups);
  const dg1 = input.dataGroups.get(1);
  const dg1Matched = hashes.rows.some((row) => row.number === 1 && row.status === 'match');

  return {
    verdicts: { ds_signature: dsSignature, chain: chainResult.verdict, data_group_hashes: hashes.verdict },
    data_groups: hashes.rows,
    uncovered_data_groups: hashes.uncovered,
    lds: {
      version: lds.version,
      hash_algorithm: lds.hashName ?? lds.hashAlgorithm.oid,
      lds_version: lds.ldsVersion ?? null,
      unicode_version: lds.unicodeVersion ?? null,
    },
    signature_algorithm: signerInfo.signatureAlgorithm.oid,
    signing_time: signingTime?.toISOString() ?? null,
    validated_at: validatedAt.toISOString(),
    document_signer: signer.certificate ? summarise(signer.certificate) : null,
    csca: chainResult.csca ? summarise(chainResult.csca) : null,
    // An unauthenticated MRZ is not worth reporting: it could say anything.
    mrz: dg1 && dg1Matched ? parseMrz(dg1) : null,
  };
}

interface SignerMatch {
  readonly certificate: ParsedCertificate | null;
  /** Whether `certificate`'s key verifies the SignerInfo signature. */
  readonly signatureValid: boolean;
  readonly unsupported: boolean;
}

/**
 * Picks the DS certificate among those embedded in the SOD. Strict sid matching fails on real
 * documents (MY lists the issuer RDNs in another order than its certificate), so candidates are
 * ranked by how well they match and the first whose key verifies the signature wins.
 */
function findDocumentSigner(signedData: SignedData, signerInfo: SignerInfo): SignerMatch {
  const certificates = signedData.certificates.flatMap((der) => {
    try {
      return [parseCertificate(der)];
    } catch {
      return []; // an unreadable extra certificate must not hide the DS
    }
  });
  const sid = signerInfo.sid;
  const score = (c: ParsedCertificate): number => {
    if (sid.kind === 'subjectKeyIdentifier') return c.subjectKeyIdentifier?.equals(sid.keyIdentifier) ? 3 : 0;
    if (c.serialNumber.equals(sid.serialNumber)) return c.issuerDer.equals(sid.issuer) ? 3 : 2;
    return 0;
  };
  const ranked = certificates.map((c) => ({ c, s: score(c) })).sort((a, b) => b.s - a.s).map(({ c }) => c);
  if (ranked.length === 0) return { certificate: null, signatureValid: false, unsupported: false };

  const signedBytes = signerInfo.signedAttrsForSignature ?? signedData.eContent;
  let unsupported = false;
  for (const candidate of ranked) {
    const outcome = verifyCmsSignature(signerInfo.signatureAlgorithm, signerInfo.digestAlgorithm, signedBytes, signerInfo.signature, candidate.publicKey);
    if (outcome === 'valid') return { certificate: candidate, signatureValid: true, unsupported: false };
    if (outcome === 'unsupported') unsupported = true;
  }
  // No key verifies: report against the best sid match, or the only certificate there is.
  const best = score(ranked[0]) > 0 || ranked.length === 1 ? ranked[0] : null;
  return { certificate: best, signatureValid: false, unsupported };
}

function verifyDsSignature(signedData: SignedData, signerInfo: SignerInfo, signer: SignerMatch): Verdict {
  const digestHash: HashName | undefined = HASH_BY_OID[signerInfo.digestAlgorithm.oid];
  if (!digestHash || signer.unsupported) return { status: 'failed', reason: 'unsupported_algorithm' };

  // ICAO 9303-10 requires signed attributes; without them the signature covers eContent directly.
  if (signerInfo.signedAttrsForSignature) {
    const contentType = signedAttribute(signerInfo, Oid.contentTypeAttr);
    if (contentType && (!isUniversal(contentType, Tag.OID) || decodeOid(contentType) !== signedData.eContentType)) {
      return { status: 'failed', reason: 'content_type_mismatch' };
    }
    const messageDigest = signedAttribute(signerInfo, Oid.messageDigestAttr);
    const expected = createHash(digestHash).update(signedData.eContent).digest();
    if (!messageDigest || !isUniversal(messageDigest, Tag.OCTET_STRING) || !equalBytes(octetStringValue(messageDigest), expected)) {
      return { status: 'failed', reason: 'message_digest_mismatch' };
    }
  }
  if (!signer.certificate) return { status: 'failed', reason: 'ds_certificate_not_found' };
  return signer.signatureValid ? SUCCEEDED : { status: 'failed', reason: 'signature_invalid' };
}

async function verifyChain(
  ds: ParsedCertificate,
  trustStore: CscaTrustStore,
  at: Date,
): Promise<{ verdict: Verdict; csca: ParsedCertificate | null }> {
  const candidates = await trustStore.candidatesFor(documentSignerLookup(ds));
  if (candidates.length === 0) return { verdict: { status: 'failed', reason: 'no_csca_trust_anchor' }, csca: null };

  const issuers = candidates.flatMap((candidate) => {
    try {
      const parsed = parseCertificate(candidate.der);
      return isSignedBy(ds, parsed) ? [parsed] : [];
    } catch {
      return [];
    }
  });
  if (issuers.length === 0) return { verdict: { status: 'failed', reason: 'could_not_build_chain' }, csca: null };

  const current = issuers.find((issuer) => isValidAt(issuer, at));
  if (!current) return { verdict: { status: 'failed', reason: 'csca_not_valid_at_signing_time' }, csca: issuers[0] };
  if (!isValidAt(ds, at)) return { verdict: { status: 'failed', reason: 'ds_certificate_not_valid_at_signing_time' }, csca: current };
  return { verdict: SUCCEEDED, csca: current };
}

function compareDataGroupHashes(
  hashName: HashName | null,
  stored: ReadonlyMap<number, Buffer>,
  submitted: ReadonlyMap<number, Buffer>,
): { verdict: Verdict; rows: DataGroupHashResult[]; uncovered: number[] } {
  const numbers = [...new Set([...stored.keys(), ...submitted.keys()])].sort((a, b) => a - b);
  const rows: DataGroupHashResult[] = numbers.map((number) => {
    const storedHash = stored.get(number);
    const content = submitted.get(number);
    const computed = content && hashName ? createHash(hashName).update(content).digest() : null;
    let status: DataGroupHashResult['status'];
    if (!content) status = 'not_submitted';
    else if (!storedHash) status = 'not_in_sod';
    else status = computed && equalBytes(computed, storedHash) ? 'match' : 'mismatch';
    return { number, stored_hash: storedHash?.toString('hex') ?? null, computed_hash: computed?.toString('hex') ?? null, status };
  });
  const uncovered = rows.filter((row) => row.status === 'not_in_sod').map((row) => row.number);

  let verdict: Verdict;
  if (submitted.size === 0) verdict = { status: 'not_checked', reason: 'no_data_groups' };
  else if (!hashName) verdict = { status: 'failed', reason: 'unsupported_algorithm' };
  else if (rows.some((row) => row.status === 'mismatch')) verdict = { status: 'failed', reason: 'hash_mismatch' };
  // Unsigned data groups cannot be called genuine, so their presence fails the check.
  else if (uncovered.length > 0) verdict = { status: 'failed', reason: 'data_group_not_in_sod' };
  else verdict = SUCCEEDED;
  return { verdict, rows, uncovered };
}

function equalBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function summarise(certificate: ParsedCertificate): CertificateSummary {
  return {
    subject: certificate.subject,
    issuer: certificate.issuer,
    serial_number: certificate.serialNumber.toString('hex'),
    not_before: certificate.notBefore.toISOString(),
    not_after: certificate.notAfter.toISOString(),
    fingerprint_sha256: certificate.fingerprintSha256,
  };
}
