import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook endpoints, deliveries, the attempt log and the audit log (docs/webhooks.md). */
export class Webhooks1763791000000 implements MigrationInterface {
  name = 'Webhooks1763791000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      livemode boolean NOT NULL,
      url text NOT NULL,
      events text[] NOT NULL,
      secret_ciphertext text NOT NULL,
      previous_secret_ciphertext text,
      previous_secret_expires_at timestamptz,
      status text NOT NULL,
      disabled_reason text,
      failing_since timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      deleted_at timestamptz
    )`);
    await q.query(`CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id, livemode) WHERE deleted_at IS NULL`);
    await q.query(`CREATE TABLE webhook_deliveries (
      id text PRIMARY KEY,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints(id),
      tenant_id text NOT NULL,
      event_id text NOT NULL,
      status text NOT NULL,
      attempts int NOT NULL DEFAULT 0,
      replay boolean NOT NULL DEFAULT false,
      next_attempt_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC)`);
    await q.query(`CREATE TABLE webhook_attempts (
      seq bigserial PRIMARY KEY,
      delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
      endpoint_id text NOT NULL,
      tenant_id text NOT NULL,
      event_id text NOT NULL,
      attempt int NOT NULL,
      started_at timestamptz NOT NULL,
      duration_ms int NOT NULL,
      status_code int,
      succeeded boolean NOT NULL,
      error text,
      response_body text,
      next_retry_at timestamptz
    )`);
    await q.query(`CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, seq DESC)`);
    await q.query(`CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, seq DESC)`);
    await q.query(`CREATE INDEX outbox_events_tenant_time ON outbox_events (tenant_id, livemode, created_at)`);
    await q.query(`CREATE TABLE IF NOT EXISTS audit_log (
      seq bigserial PRIMARY KEY,
      tenant_id text NOT NULL,
      livemode boolean NOT NULL,
      action text NOT NULL,
      subject_id text NOT NULL,
      detail jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX IF NOT EXISTS audit_log_tenant ON audit_log (tenant_id, seq DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX outbox_events_tenant_time`);
    for (const t of ['audit_log', 'webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']) await q.query(`DROP TABLE ${t}`);
  }
}
