import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each failed sign-in row gets an id (issue 40, the class of finding 6): a password sign-in records its
 * failure rows before it checks the password, so concurrent guesses count each other, and deletes
 * exactly those rows by id when the password was right (docs/accounts-and-oidc.md, "Sign-in limits").
 * A random uuid, not a sequence: nothing to grant the app's role, and nothing ordered to read off it.
 */
export class SignInFailureIds1764980000000 implements MigrationInterface {
  name = 'SignInFailureIds1764980000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sign_in_failures ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sign_in_failures DROP COLUMN id`);
  }
}
