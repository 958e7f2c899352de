import { isSignedBy, isValidAt, ParsedCertificate, parseCertificate } from './certificate.parser';
import { ChipInputError } from './chip.errors';
import { Oid } from './chip.oids';
import { verifySignerInfo } from './cms-signer.verifier';
import { CscaCertificate, toCscaCertificate } from './csca.trust-store';
import { children, decodeSmallInteger, DerError, expectUniversal, readWhole, Tag } from './der.reader';
import { parseSignedData, SignedData, signingTimeOf } from './signed-data.parser';

export interface MasterListImport {
  /** CSCA certificates from the list, deduplicated by fingerprint, in list order. */
  readonly certificates: CscaCertificate[];
  /** Entries that are not parseable certificates (index in certList and why). */
  readonly rejected: { index: number; reason: string }[];
  readonly signer: { subject: string; issuer: string; fingerprintSha256: string };
  readonly signingTime: Date | null;
}

export interface MasterListOptions {
  /** Validity instant used when the list has no signingTime. @default new Date() */
  readonly now?: Date;
}

/**
 * Imports an ICAO 9303-12 CSCA master list. The list's CMS signature, and the Master List
 * Signer's certificate against `anchorDer` (the issuing state's CSCA, obtained out of band),
 * are verified before any certificate inside is returned: an unverified list yields nothing.
 */
export function importMasterList(masterListDer: Buffer, anchorDer: Buffer, options: MasterListOptions = {}): MasterListImport {
  const anchor = parseAnchor(anchorDer);
  const signedData = parseMasterListCms(masterListDer);
  const signerInfo = signedData.signerInfos[0];

  const { verdict, certificate: signer } = verifySignerInfo(signedData, signerInfo);
  if (verdict.status !== 'succeeded' || !signer) {
    throw new ChipInputError('master_list_signature_invalid', `master list signature does not verify (${verdict.reason ?? 'unknown'})`);
  }
  const signingTime = signingTimeOf(signerInfo) ?? null;
  assertSignerTrusted(signer, anchor, signingTime ?? options.now ?? new Date());

  const { certificates, rejected } = readCertList(signedData.eContent);
  return {
    certificates,
    rejected,
    signer: { subject: signer.subject, issuer: signer.issuer, fingerprintSha256: signer.fingerprintSha256 },
    signingTime,
  };
}

/** The CSCA certificates of a verified master list; see importMasterList. */
export function parseMasterList(masterListDer: Buffer, anchorDer: Buffer, options: MasterListOptions = {}): CscaCertificate[] {
  return importMasterList(masterListDer, anchorDer, options).certificates;
}

function parseAnchor(anchorDer: Buffer): ParsedCertificate {
  try {
    return parseCertificate(anchorDer);
  } catch (error) {
    throw new ChipInputError('malformed_certificate', `trust anchor is not a certificate: ${(error as Error).message}`);
  }
}

function parseMasterListCms(masterListDer: Buffer): SignedData {
  let signedData: SignedData;
  try {
    signedData = parseSignedData(masterListDer);
  } catch (error) {
    throw new ChipInputError('malformed_master_list', `master list is not a CMS SignedData: ${(error as Error).message}`);
  }
  if (signedData.eContentType !== Oid.cscaMasterList) {
    throw new ChipInputError('malformed_master_list', `eContentType ${signedData.eContentType} is not id-icao-cscaMasterList`);
  }
  return signedData;
}

/** The signer must be the anchor itself or be issued by it, and be valid when it signed. */
function assertSignerTrusted(signer: ParsedCertificate, anchor: ParsedCertificate, at: Date): void {
  const isAnchor = signer.fingerprintSha256 === anchor.fingerprintSha256;
  if (!isAnchor && !isSignedBy(signer, anchor)) {
    throw new ChipInputError('untrusted_master_list_signer', `master list signer "${oneLine(signer.subject)}" is not issued by the anchor "${oneLine(anchor.subject)}"`);
  }
  if (!isValidAt(signer, at) || !isValidAt(anchor, at)) {
    throw new ChipInputError('untrusted_master_list_signer', `master list signer or anchor is not valid at ${at.toISOString()}`);
  }
}

function readCertList(eContent: Buffer): Pick<MasterListImport, 'certificates' | 'rejected'> {
  let entries;
  try {
    const fields = children(expectUniversal(readWhole(eContent), Tag.SEQUENCE, 'CscaMasterList'));
    if (decodeSmallInteger(fields[0]) !== 0) throw new DerError('unsupported CscaMasterList version');
    entries = children(expectUniversal(fields[1], Tag.SET, 'certList'));
  } catch (error) {
    throw new ChipInputError('malformed_master_list', `CscaMasterList could not be parsed: ${(error as Error).message}`);
  }
  const certificates: CscaCertificate[] = [];
  const rejected: MasterListImport['rejected'] = [];
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    try {
      const csca = toCscaCertificate(parseCertificate(Buffer.from(entry.raw)));
      if (seen.has(csca.fingerprintSha256)) return;
      seen.add(csca.fingerprintSha256);
      certificates.push(csca);
    } catch (error) {
      rejected.push({ index, reason: (error as Error).message });
    }
  });
  return { certificates, rejected };
}

function oneLine(name: string): string {
  return name.split('\n').join(', ');
}
