import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console's people (docs/decisions.md D16, docs/console.md): members (a user of the service linked to a
 * tenant with a role), their invitations (token stored hashed, email sealed), the second factors of
 * users who sign in to the console (TOTP secret sealed, passkeys' public keys, recovery codes hashed),
 * and console sessions (server-side rows named by the hash of the cookie's token).
 */
export class ConsoleMembers1764950000000 implements MigrationInterface {
  name = 'ConsoleMembers1764950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE members (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'reviewer', 'viewer')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, user_id)
      )`);
    await q.query(`CREATE INDEX members_user ON members (user_id)`);
    await q.query(`
      CREATE TABLE member_invitations (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        email_hash text NOT NULL,
        email_sealed text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'reviewer', 'viewer')),
        token_hash text NOT NULL UNIQUE,
        invited_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        member_id text,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX member_invitations_tenant ON member_invitations (tenant_id, created_at)`);
    await q.query(`
      CREATE TABLE console_totp (
        user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        secret_sealed text NOT NULL,
        confirmed_at timestamptz,
        last_step bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE console_passkeys (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        credential_id text NOT NULL UNIQUE,
        public_key text NOT NULL,
        counter bigint NOT NULL DEFAULT 0,
        transports text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      )`);
    await q.query(`CREATE INDEX console_passkeys_user ON console_passkeys (user_id)`);
    await q.query(`
      CREATE TABLE console_recovery_codes (
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        code_hash text NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, code_hash)
      )`);
    await q.query(`
      CREATE TABLE console_sessions (
        token_hash text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        tenant_id text REFERENCES tenants(id) ON DELETE CASCADE,
        second_factor_at timestamptz,
        challenge text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX console_sessions_user ON console_sessions (user_id)`);
    await q.query(`CREATE INDEX console_sessions_expiry ON console_sessions (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['console_sessions', 'console_recovery_codes', 'console_passkeys', 'console_totp', 'member_invitations', 'members']) await q.query(`DROP TABLE ${t}`);
  }
}
