import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { CscaCertificateEntity } from '../../entities';
import { DomainError } from '../errors';
import { parseCertificate } from './certificate.parser';
import { ChipInputError } from './chip.errors';
import { CscaCertificate, CscaTrustStore, DocumentSignerLookup, toCscaCertificate } from './csca.trust-store';
import { importMasterList } from './master-list.parser';
import { systemClock, type Clock } from '../clock';

export type CscaSource = 'master_list' | 'operator_certificate';

export type CscaImportReport = {
  source: CscaSource;
  /** Certificates in the input (after de-duplication inside it). */
  total: number;
  /** Newly trusted; the rest were already in the store (same fingerprint). */
  inserted: number;
  already_present: number;
  rejected: { index: number; reason: string }[];
  master_list_sha256: string | null;
  master_list_signer: string | null;
  master_list_signing_time: string | null;
  anchor_fingerprint_sha256: string | null;
  countries: string[];
};

export type CscaPage = { certificates: CscaCertificateEntity[]; hasNextPage: boolean };

const INSERT_CHUNK = 200;
const COUNTRY = /^[A-Z]{2,3}$/;

/**
 * The CSCA trust store in PostgreSQL. Lookups return candidates by the DS certificate's authority
 * key identifier or issuer name; the verifier accepts a candidate only if its key verifies the DS
 * signature, so a same-name certificate with another key never anchors a chain.
 */
export class PostgresCscaTrustStore implements CscaTrustStore {
  constructor(
    private readonly db: DataSource,
    private readonly now: Clock = systemClock,
  ) {}

  async candidatesFor(ds: DocumentSignerLookup): Promise<CscaCertificate[]> {
    const qb = this.db.getRepository(CscaCertificateEntity).createQueryBuilder('c').where('c.subject_key = :issuerKey', { issuerKey: ds.issuerKey });
    if (ds.authorityKeyIdentifier) qb.orWhere('c.subject_key_identifier = :aki', { aki: ds.authorityKeyIdentifier });
    const rows = await qb.orderBy('c.fingerprint_sha256').limit(50).getMany();
    // Key-identifier matches first: they are the likelier issuer when names are reused.
    const aki = ds.authorityKeyIdentifier;
    rows.sort((a, b) => Number(b.subjectKeyIdentifier === aki) - Number(a.subjectKeyIdentifier === aki));
    return rows.map(toDomain);
  }

  /**
   * Imports an ICAO master list. Nothing is stored unless the list's CMS signature verifies and
   * its signer chains to `anchorDer`; the import is one transaction (all or nothing).
   */
  async importMasterList(masterListDer: Buffer, anchorDer: Buffer): Promise<CscaImportReport> {
    const imported = importMasterList(masterListDer, anchorDer, { now: this.now() });
    const masterListSha256 = sha256(masterListDer);
    const anchorFingerprint = sha256(anchorDer);
    const signer = imported.signer.subject.split('\n').join(', ');
    const { inserted } = await this.store(imported.certificates, 'master_list', {
      masterListSha256,
      masterListSigner: signer,
      anchorFingerprintSha256: anchorFingerprint,
    });
    return {
      source: 'master_list',
      total: imported.certificates.length,
      inserted,
      already_present: imported.certificates.length - inserted,
      rejected: imported.rejected,
      master_list_sha256: masterListSha256,
      master_list_signer: signer,
      master_list_signing_time: imported.signingTime?.toISOString() ?? null,
      anchor_fingerprint_sha256: anchorFingerprint,
      countries: [...new Set(imported.certificates.map((c) => countryOf(c.subject)).filter((c): c is string => c !== null))].sort(),
    };
  }

  /**
   * Trusts one certificate without a master list. Only for test vectors and development, or a
   * CSCA the operator obtained and checked out of band: the CLI gates it behind an explicit flag.
   */
  async trustCertificate(der: Buffer): Promise<CscaImportReport> {
    let csca: CscaCertificate;
    try {
      csca = toCscaCertificate(parseCertificate(der));
    } catch (error) {
      throw new ChipInputError('malformed_certificate', `not a DER X.509 certificate: ${(error as Error).message}`);
    }
    const { inserted } = await this.store([csca], 'operator_certificate', { masterListSha256: null, masterListSigner: null, anchorFingerprintSha256: null });
    return {
      source: 'operator_certificate',
      total: 1,
      inserted,
      already_present: 1 - inserted,
      rejected: [],
      master_list_sha256: null,
      master_list_signer: null,
      master_list_signing_time: null,
      anchor_fingerprint_sha256: null,
      countries: [countryOf(csca.subject)].filter((c): c is string => c !== null),
    };
  }

  /** Pages through the store ordered by fingerprint; `after` is the last fingerprint seen. */
  async list(q: { first: number; after?: string | null; country?: string | null }): Promise<CscaPage> {
    if (!Number.isInteger(q.first) || q.first < 1 || q.first > 100) throw new DomainError('invalid_request', 'first must be between 1 and 100');
    const qb = this.db.getRepository(CscaCertificateEntity).createQueryBuilder('c').orderBy('c.fingerprint_sha256').take(q.first + 1);
    if (q.country != null) {
      const country = q.country.toUpperCase();
      if (!COUNTRY.test(country)) throw new DomainError('invalid_request', 'country must be a 2- or 3-letter country code');
      qb.andWhere('c.country = :country', { country });
    }
    if (q.after != null) {
      const after = decodeCursor(q.after);
      qb.andWhere('c.fingerprint_sha256 > :after', { after });
    }
    const rows = await qb.getMany();
    return { certificates: rows.slice(0, q.first), hasNextPage: rows.length > q.first };
  }

  private async store(
    certificates: CscaCertificate[],
    source: CscaSource,
    origin: Pick<CscaCertificateEntity, 'masterListSha256' | 'masterListSigner' | 'anchorFingerprintSha256'>,
  ): Promise<{ inserted: number }> {
    const importedAt = this.now();
    const rows = certificates.map(
      (c): CscaCertificateEntity => ({
        fingerprintSha256: c.fingerprintSha256,
        der: c.der,
        subject: c.subject,
        subjectKey: c.subjectKey,
        issuer: c.issuer,
        country: countryOf(c.subject),
        subjectKeyIdentifier: c.subjectKeyIdentifier,
        authorityKeyIdentifier: c.authorityKeyIdentifier,
        serialNumber: c.serialNumber,
        notBefore: c.notBefore,
        notAfter: c.notAfter,
        source,
        ...origin,
        importedAt,
      }),
    );
    return this.db.transaction(async (m) => {
      let inserted = 0;
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const result = await m
          .createQueryBuilder()
          .insert()
          .into(CscaCertificateEntity)
          .values(rows.slice(i, i + INSERT_CHUNK) as QueryDeepPartialEntity<CscaCertificateEntity>[])
          .orIgnore() // same fingerprint: already trusted; the first import's provenance stays
          .returning('fingerprint_sha256')
          .execute();
        inserted += (result.raw as unknown[]).length;
      }
      return { inserted };
    });
  }
}

export function encodeCscaCursor(fingerprint: string): string {
  return Buffer.from(fingerprint, 'hex').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const hex = Buffer.from(cursor, 'base64url').toString('hex');
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new DomainError('invalid_request', 'after is not a cursor this API returned');
  return hex;
}

/** The C= attribute of a node:crypto "C=DE\nO=...\nCN=..." name, upper-cased. */
export function countryOf(subject: string): string | null {
  const line = subject.split('\n').find((part) => /^C=/i.test(part.trim()));
  const value = line?.trim().slice(2).trim().toUpperCase() ?? '';
  return COUNTRY.test(value) ? value : null;
}

function toDomain(row: CscaCertificateEntity): CscaCertificate {
  return {
    der: row.der,
    subject: row.subject,
    issuer: row.issuer,
    subjectKeyIdentifier: row.subjectKeyIdentifier,
    authorityKeyIdentifier: row.authorityKeyIdentifier,
    serialNumber: row.serialNumber,
    notBefore: row.notBefore,
    notAfter: row.notAfter,
    fingerprintSha256: row.fingerprintSha256,
    subjectKey: row.subjectKey,
  };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
