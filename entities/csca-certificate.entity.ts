import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A Country Signing CA certificate the service trusts for Passive Authentication. Operator-wide,
 * not per tenant: like the ICAO PKD, trust in an issuing state's CSCA is the same for everyone.
 * Unique by fingerprint, so re-importing a master list is idempotent.
 */
@Entity({ name: 'csca_certificates' })
export class CscaCertificateEntity {
  @PrimaryColumn('text', { name: 'fingerprint_sha256' })
  fingerprintSha256: string;

  @Column('bytea')
  der: Buffer;

  @Column('text')
  subject: string;

  /** distinguishedNameKey(subject): the lookup key for a DS certificate's issuer. */
  @Column('text', { name: 'subject_key' })
  subjectKey: string;

  @Column('text')
  issuer: string;

  /** Upper-case C= of the subject, for listing; null when the subject has none. */
  @Column('text', { nullable: true })
  country: string | null;

  @Column('text', { name: 'subject_key_identifier', nullable: true })
  subjectKeyIdentifier: string | null;

  @Column('text', { name: 'authority_key_identifier', nullable: true })
  authorityKeyIdentifier: string | null;

  @Column('text', { name: 'serial_number' })
  serialNumber: string;

  @Column('timestamptz', { name: 'not_before' })
  notBefore: Date;

  @Column('timestamptz', { name: 'not_after' })
  notAfter: Date;

  /** `master_list` (verified against an anchor) or `operator_certificate` (trusted by hand). */
  @Column('text')
  source: string;

  /** SHA-256 of the master list file the certificate came from. */
  @Column('text', { name: 'master_list_sha256', nullable: true })
  masterListSha256: string | null;

  @Column('text', { name: 'master_list_signer', nullable: true })
  masterListSigner: string | null;

  /** SHA-256 of the anchor certificate the master list's signer was verified against. */
  @Column('text', { name: 'anchor_fingerprint_sha256', nullable: true })
  anchorFingerprintSha256: string | null;

  @Column('timestamptz', { name: 'imported_at' })
  importedAt: Date;
}
