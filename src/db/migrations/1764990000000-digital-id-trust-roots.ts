import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The digital-ID trust store (D24, docs/digital-ids.md): IACA roots for mdoc credentials and issuer roots
 * for SD-JWT VC, each trusted in one environment (test or live). The project's own test IACA is not a row:
 * test mode adds it in code and live mode can never hold it.
 */
export class DigitalIdTrustRoots1764990000000 implements MigrationInterface {
  name = 'DigitalIdTrustRoots1764990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE digital_id_trust_roots (
      environment text NOT NULL CHECK (environment IN ('test', 'live')),
      kind text NOT NULL CHECK (kind IN ('iaca', 'sd_jwt_vc_issuer')),
      fingerprint_sha256 text NOT NULL,
      der bytea NOT NULL,
      subject text NOT NULL,
      not_before timestamptz NOT NULL,
      not_after timestamptz NOT NULL,
      source text NOT NULL CHECK (source IN ('pem', 'vical')),
      added_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (environment, kind, fingerprint_sha256)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE digital_id_trust_roots`);
  }
}
