import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hosted page's higher-tier steps (docs/hosted-flow.md): business details (T4) and the
 * confirmed identity (T3, sealed with the tenant's vault key) kept with the session's capture
 * state, and the hash of the client_secret minted for the mobile app at the T5 handoff.
 */
export class HostedTierSteps1764730000000 implements MigrationInterface {
  name = 'HostedTierSteps1764730000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE hosted_captures ADD COLUMN business jsonb, ADD COLUMN identity_sealed text`);
    await q.query(`ALTER TABLE sessions ADD COLUMN app_client_secret_hash text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions DROP COLUMN app_client_secret_hash`);
    await q.query(`ALTER TABLE hosted_captures DROP COLUMN business, DROP COLUMN identity_sealed`);
  }
}
