import { MigrationInterface, QueryRunner } from 'typeorm';

/** The CSCA trust store for T5 Passive Authentication (docs/chip.md). */
export class CscaCertificates1763790700000 implements MigrationInterface {
  name = 'CscaCertificates1763790700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE csca_certificates (
      fingerprint_sha256 text PRIMARY KEY,
      der bytea NOT NULL,
      subject text NOT NULL,
      subject_key text NOT NULL,
      issuer text NOT NULL,
      country text,
      subject_key_identifier text,
      authority_key_identifier text,
      serial_number text NOT NULL,
      not_before timestamptz NOT NULL,
      not_after timestamptz NOT NULL,
      source text NOT NULL CHECK (source IN ('master_list', 'operator_certificate')),
      master_list_sha256 text,
      master_list_signer text,
      anchor_fingerprint_sha256 text,
      imported_at timestamptz NOT NULL
    )`);
    // The two ways a DS certificate names its issuer: key identifier, then subject name.
    await q.query(`CREATE INDEX csca_certificates_ski ON csca_certificates (subject_key_identifier)`);
    await q.query(`CREATE INDEX csca_certificates_subject_key ON csca_certificates (subject_key)`);
    await q.query(`CREATE INDEX csca_certificates_country ON csca_certificates (country, fingerprint_sha256)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE csca_certificates`);
  }
}
