import { createHash } from 'node:crypto';
import { isSignedBy, isValidAt, ParsedCertificate, parseCertificate } from './certificate.parser';
import { equalBytes } from './bytes.util';
import { ChipInputError } from './chip.errors';
import { HashName } from './chip.oids';
import { DerError } from './der.reader';
import { verifySignerInfo } from './cms-signer.verifier';
import { CscaTrustStore, documentSignerLookup } from './csca.trust-store';
import { parseMrz } from './mrz.parser';
import {
  CertificateSummary,
  DataGroupHashResult,
  PassiveAuthenticationResult,
  Verdict,
} from './passive-authentication.types';
import { signingTimeOf } from './signed-data.parser';
import { parseSod } from './sod.parser';

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
  for (const number of input.dataGroups.keys()) {
    if (!Number.isInteger(number) || number < 1 || number > 16) {
      throw new ChipInputError('invalid_request', `data group ${number} is not a number from 1 to 16`, `data_groups.${number}`);
    }
  }
  try {
    return await verifyParsed(input);
  } catch (error) {
    // Attribute values are decoded lazily; a structural fault found there is still a bad SOD.
    if (error instanceof DerError) throw new ChipInputError('malformed_sod', `EF.SOD could not be parsed: ${error.message}`, 'sod');
    throw error;
  }
}

async function verifyParsed(input: PassiveAuthenticationInput): Promise<PassiveAuthenticationResult> {
  const sod = parseSod(input.sod);
  const { signedData, signerInfo, lds } = sod;
  const signingTime = signingTimeOf(signerInfo);
  const validatedAt = signingTime ?? input.now ?? new Date();

  const signer = verifySignerInfo(signedData, signerInfo);
  const dsSignature = signer.verdict;

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
      content_type: signedData.eContentType,
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
    // A DG1 that does not match the SOD could say anything, so it is not summarised at all.
    mrz: dg1 && dg1Matched ? parseMrz(dg1) : null,
  };
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
