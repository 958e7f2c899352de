import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Digital-ID requests (D24, docs/digital-ids.md): one row per OpenID4VP request a hosted session sent, with
 * its nonce, the channel it went out on, the session's response-encryption key (sealed by the vault) and
 * how the wallet's answer fared. The outcome holds no personal data (the format, issuer and the steps
 * verified, or the failed step); the presentation itself is a vault artifact. Flows offer digital IDs
 * unless switched off.
 */
export class DigitalIdRequests1764990000001 implements MigrationInterface {
  name = 'DigitalIdRequests1764990000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE digital_id_requests (
      id text PRIMARY KEY,
      session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      nonce text NOT NULL,
      state text NOT NULL,
      encryption_key_sealed text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'failed', 'error')),
      channel text CHECK (channel IN ('dc_api', 'cross_device')),
      outcome jsonb,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      answered_at timestamptz
    )`);
    await q.query(`CREATE INDEX digital_id_requests_session ON digital_id_requests (session_id, created_at)`);
    await q.query(`ALTER TABLE flows ADD COLUMN digital_id_enabled boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE flows DROP COLUMN digital_id_enabled`);
    await q.query(`DROP TABLE digital_id_requests`);
  }
}
