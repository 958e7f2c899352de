import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tenant's subject of a bound session's user, kept on the session so reads and events need no lookup (docs/accounts-and-oidc.md). */
export class SessionUserSub1764400100000 implements MigrationInterface {
  name = 'SessionUserSub1764400100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions ADD COLUMN user_sub text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions DROP COLUMN user_sub`);
  }
}
