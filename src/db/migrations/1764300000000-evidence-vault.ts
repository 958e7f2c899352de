import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The evidence vault (docs/hosted-flow.md): artifact rows (metadata, kept after a purge), their
 * encrypted bytes in a table of their own (a purge deletes the bytes, never the row), the per-tenant
 * data keys wrapped by the master key, the hosted flow's capture state per session, and the
 * flows' embedding origins.
 */
export class EvidenceVault1764300000000 implements MigrationInterface {
  name = 'EvidenceVault1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE vault_data_keys (
      tenant_id text PRIMARY KEY REFERENCES tenants(id),
      wrapped_key text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE artifacts (
      id text PRIMARY KEY,
      session_id text NOT NULL REFERENCES sessions(id),
      tenant_id text NOT NULL,
      livemode boolean NOT NULL,
      user_id text,
      class text NOT NULL,
      content_type text NOT NULL,
      size_bytes integer NOT NULL,
      sha256 text NOT NULL,
      details jsonb NOT NULL DEFAULT '{}',
      iv bytea NOT NULL,
      auth_tag bytea NOT NULL,
      stored_at timestamptz NOT NULL,
      retain_until timestamptz NOT NULL,
      purged_at timestamptz
    )`);
    await q.query(`CREATE INDEX artifacts_session ON artifacts (session_id, class)`);
    await q.query(`CREATE INDEX artifacts_retain_until ON artifacts (retain_until) WHERE purged_at IS NULL`);
    await q.query(`CREATE TABLE artifact_blobs (
      artifact_id text PRIMARY KEY REFERENCES artifacts(id),
      ciphertext bytea NOT NULL
    )`);
    await q.query(`CREATE TABLE hosted_captures (
      session_id text PRIMARY KEY REFERENCES sessions(id),
      started_at timestamptz NOT NULL,
      challenge jsonb,
      submitted_at timestamptz
    )`);
    await q.query(`ALTER TABLE flows ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE flows DROP COLUMN allowed_origins`);
    for (const t of ['hosted_captures', 'artifact_blobs', 'artifacts', 'vault_data_keys']) await q.query(`DROP TABLE ${t}`);
  }
}
