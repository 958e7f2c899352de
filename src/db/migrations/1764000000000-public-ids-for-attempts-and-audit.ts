import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook attempts and audit entries were shown by their global sequence numbers, which told one
 * tenant how much every other tenant did. They get random public ids (a prefix and 24 characters,
 * drawn from gen_random_uuid's CSPRNG); the sequences stay as internal keys and sort orders.
 */
export class PublicIdsForAttemptsAndAudit1764000000000 implements MigrationInterface {
  name = 'PublicIdsForAttemptsAndAudit1764000000000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, prefix] of [
      ['webhook_attempts', 'watt'],
      ['audit_log', 'aud'],
    ]) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN public_id text`);
      await q.query(`UPDATE ${table} SET public_id = '${prefix}_' || substr(md5(gen_random_uuid()::text), 1, 24)`);
      await q.query(`ALTER TABLE ${table} ALTER COLUMN public_id SET DEFAULT ('${prefix}_' || substr(md5(gen_random_uuid()::text), 1, 24))`);
      await q.query(`ALTER TABLE ${table} ALTER COLUMN public_id SET NOT NULL`);
      await q.query(`CREATE UNIQUE INDEX ${table}_public_id ON ${table} (public_id)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['webhook_attempts', 'audit_log']) await q.query(`ALTER TABLE ${table} DROP COLUMN public_id`);
  }
}
