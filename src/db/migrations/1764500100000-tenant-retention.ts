import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-tenant retention (docs/retention-and-audit.md): one policy per tenant and mode (no row: the
 * spec's defaults), the operator's `regulated` flag, per-session ID-document extensions, the
 * artifacts' 0-day marker (purged when the session completes), a report of each retention run,
 * and the audit segments already replicated to write-once storage.
 */
export class TenantRetention1764500100000 implements MigrationInterface {
  name = 'TenantRetention1764500100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE tenant_retention (
      tenant_id text NOT NULL REFERENCES tenants(id),
      livemode boolean NOT NULL,
      biometric_template_days integer NOT NULL,
      selfie_image_days integer NOT NULL,
      selfie_video_days integer NOT NULL,
      id_document_years integer NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, livemode)
    )`);
    await q.query(`ALTER TABLE tenants ADD COLUMN regulated boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE artifacts ADD COLUMN purge_at_completion boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE artifacts ADD COLUMN retention_extended boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE INDEX artifacts_completion_purge ON artifacts (session_id) WHERE purge_at_completion AND purged_at IS NULL`);
    await q.query(`CREATE TABLE retention_extensions (
      id text PRIMARY KEY,
      session_id text NOT NULL REFERENCES sessions(id),
      tenant_id text NOT NULL,
      livemode boolean NOT NULL,
      id_document_years integer NOT NULL,
      reason text NOT NULL,
      created_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX retention_extensions_session ON retention_extensions (session_id)`);
    await q.query(`CREATE TABLE retention_runs (
      id text PRIMARY KEY,
      kind text NOT NULL,
      started_at timestamptz NOT NULL,
      finished_at timestamptz,
      reclassified jsonb NOT NULL DEFAULT '{}',
      purged jsonb NOT NULL DEFAULT '{}'
    )`);
    await q.query(`CREATE INDEX retention_runs_started ON retention_runs (started_at DESC)`);
    // Which audit entries are in write-once storage: one row per segment written (docs/retention-and-audit.md).
    await q.query(`CREATE TABLE audit_segments (
      log_id text NOT NULL,
      first_seq bigint NOT NULL,
      last_seq bigint NOT NULL,
      day date NOT NULL,
      segment_key text NOT NULL,
      last_hash text NOT NULL,
      written_at timestamptz NOT NULL,
      PRIMARY KEY (log_id, first_seq)
    )`);
    await q.query(`CREATE TABLE retention_run_tenants (
      run_id text NOT NULL REFERENCES retention_runs(id),
      tenant_id text NOT NULL,
      livemode boolean NOT NULL,
      reclassified jsonb NOT NULL DEFAULT '{}',
      purged jsonb NOT NULL DEFAULT '{}',
      PRIMARY KEY (tenant_id, livemode, run_id)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE retention_run_tenants`);
    await q.query(`DROP TABLE audit_segments`);
    await q.query(`DROP TABLE retention_runs`);
    await q.query(`DROP TABLE retention_extensions`);
    await q.query(`DROP INDEX artifacts_completion_purge`);
    await q.query(`ALTER TABLE artifacts DROP COLUMN retention_extended, DROP COLUMN purge_at_completion`);
    await q.query(`ALTER TABLE tenants DROP COLUMN regulated`);
    await q.query(`DROP TABLE tenant_retention`);
  }
}
