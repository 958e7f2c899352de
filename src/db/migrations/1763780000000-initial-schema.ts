import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763780000000 implements MigrationInterface {
  name = 'InitialSchema1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE tenants (
      id text PRIMARY KEY,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE api_keys (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      livemode boolean NOT NULL,
      key_hash text NOT NULL,
      last4 text NOT NULL,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash)`);
    await q.query(`CREATE INDEX api_keys_tenant ON api_keys (tenant_id)`);
    await q.query(`CREATE TABLE flows (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      name text NOT NULL,
      is_default boolean NOT NULL,
      max_tier text NOT NULL,
      display_name text NOT NULL,
      logo_url text,
      primary_color text NOT NULL,
      locale text NOT NULL,
      redirect_url text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE UNIQUE INDEX flows_one_default ON flows (tenant_id) WHERE is_default`);
    await q.query(`CREATE TABLE sessions (
      id text PRIMARY KEY,
      tenant_id text NOT NULL REFERENCES tenants(id),
      livemode boolean NOT NULL,
      flow_id text NOT NULL REFERENCES flows(id),
      tier text NOT NULL,
      status text NOT NULL,
      reference_id text,
      redirect_url text,
      locale text NOT NULL,
      metadata jsonb NOT NULL,
      result jsonb,
      client_secret_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz,
      expires_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX sessions_listing ON sessions (tenant_id, livemode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX sessions_reference ON sessions (tenant_id, livemode, reference_id)`);
    await q.query(`CREATE TABLE outbox_events (
      seq bigserial PRIMARY KEY,
      event_id text NOT NULL UNIQUE,
      type text NOT NULL,
      tenant_id text NOT NULL,
      livemode boolean NOT NULL,
      session_id text,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX outbox_events_session ON outbox_events (session_id, seq)`);
    await q.query(`CREATE TABLE instance_settings (key text PRIMARY KEY, value text NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['instance_settings', 'outbox_events', 'sessions', 'flows', 'api_keys', 'tenants']) {
      await q.query(`DROP TABLE ${t}`);
    }
  }
}
