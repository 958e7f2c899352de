import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * End users and the OpenID Provider (docs/accounts-and-oidc.md): users (email sealed, found by a
 * keyed hash), each tenant's pairwise subject of a user, the user a session is bound to, the
 * provider's own storage (one table for every model it persists), the tenants' OIDC clients, the
 * signing keys (sealed), email codes, the mail outbox and failed sign-in counts.
 */
export class UsersAndOidc1764400000000 implements MigrationInterface {
  name = 'UsersAndOidc1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE users (
      id text PRIMARY KEY,
      email_sealed text NOT NULL,
      email_hash text NOT NULL UNIQUE,
      email_verified boolean NOT NULL DEFAULT false,
      password_hash text NOT NULL,
      display_name text,
      handle text UNIQUE,
      public_links jsonb NOT NULL DEFAULT '[]',
      bio text,
      legal_name_sealed text,
      date_of_birth_sealed text,
      nationality_sealed text,
      state text NOT NULL DEFAULT 'active',
      service_verification jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE user_subjects (
      tenant_id text NOT NULL REFERENCES tenants(id),
      user_id text NOT NULL REFERENCES users(id),
      sub text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, user_id),
      UNIQUE (tenant_id, sub)
    )`);
    await q.query(`CREATE INDEX user_subjects_user ON user_subjects (user_id)`);
    await q.query(`ALTER TABLE sessions ADD COLUMN user_id text REFERENCES users(id)`);
    await q.query(`CREATE INDEX sessions_user ON sessions (user_id, created_at) WHERE user_id IS NOT NULL`);
    await q.query(`CREATE TABLE oidc_payloads (
      model text NOT NULL,
      id text NOT NULL,
      payload jsonb NOT NULL,
      grant_id text,
      account_id text,
      uid text,
      user_code text,
      expires_at timestamptz,
      consumed_at timestamptz,
      PRIMARY KEY (model, id)
    )`);
    await q.query(`CREATE INDEX oidc_payloads_grant ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_account ON oidc_payloads (account_id) WHERE account_id IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_uid ON oidc_payloads (uid) WHERE uid IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_expires ON oidc_payloads (expires_at)`);
    await q.query(`CREATE TABLE oidc_clients (
      client_id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      livemode boolean NOT NULL,
      secret_sealed text,
      auth_method text NOT NULL DEFAULT 'client_secret_basic',
      jwks_uri text,
      redirect_uris text[] NOT NULL DEFAULT '{}',
      post_logout_redirect_uris text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, livemode)
    )`);
    await q.query(`CREATE TABLE oidc_signing_keys (
      kid text PRIMARY KEY,
      jwk_sealed text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      active_from timestamptz NOT NULL DEFAULT now(),
      retire_at timestamptz
    )`);
    await q.query(`CREATE TABLE email_codes (
      id text PRIMARY KEY,
      email_hash text NOT NULL,
      code_hash text NOT NULL,
      purpose text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX email_codes_email ON email_codes (email_hash, created_at)`);
    await q.query(`CREATE TABLE mail_messages (
      id text PRIMARY KEY,
      to_hash text NOT NULL,
      to_sealed text NOT NULL,
      subject text NOT NULL,
      text_sealed text NOT NULL,
      transport text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz
    )`);
    await q.query(`CREATE INDEX mail_messages_to ON mail_messages (to_hash, created_at)`);
    await q.query(`CREATE TABLE sign_in_failures (
      bucket text NOT NULL,
      at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX sign_in_failures_bucket ON sign_in_failures (bucket, at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['sign_in_failures', 'mail_messages', 'email_codes', 'oidc_signing_keys', 'oidc_clients', 'oidc_payloads']) await q.query(`DROP TABLE ${t}`);
    await q.query(`ALTER TABLE sessions DROP COLUMN user_id`);
    await q.query(`DROP TABLE user_subjects`);
    await q.query(`DROP TABLE users`);
  }
}
