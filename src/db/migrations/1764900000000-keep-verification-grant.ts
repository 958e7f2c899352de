import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * "Keep this verification" needs the browser that captured (issue #25 finding 4): the hash of the
 * keep secret handed to the page that submitted, and when it was spent (it works once).
 */
export class KeepVerificationGrant1764900000000 implements MigrationInterface {
  name = 'KeepVerificationGrant1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE hosted_captures ADD COLUMN keep_secret_hash text, ADD COLUMN keep_used_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE hosted_captures DROP COLUMN keep_secret_hash, DROP COLUMN keep_used_at`);
  }
}
