import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data-subject requests (docs/data-rights.md): one table for every kind. No foreign key to users:
 * the hard purge deletes a user's rows in its own order, and the job ids stay meaningful in the
 * audit log after that.
 */
export class DsrJobs1764600000000 implements MigrationInterface {
  name = 'DsrJobs1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE dsr_jobs (
      id text PRIMARY KEY,
      user_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('export', 'rectification', 'erasure', 'restriction', 'objection', 'review', 'biometric_purge')),
      status text NOT NULL CHECK (status IN ('awaiting_confirmation', 'received', 'in_progress', 'completed', 'denied', 'failed')),
      reason text,
      details jsonb NOT NULL DEFAULT '{}',
      result jsonb,
      tenant_id text,
      livemode boolean,
      callback_url text,
      secret_ciphertext text,
      created_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL,
      acknowledge_by timestamptz NOT NULL,
      expected_by timestamptz NOT NULL,
      confirm_by timestamptz,
      confirmed_at timestamptz,
      started_at timestamptz,
      completed_at timestamptz,
      updated_at timestamptz NOT NULL,
      CHECK ((tenant_id IS NULL) = (livemode IS NULL))
    )`);
    await q.query(`CREATE INDEX dsr_jobs_user ON dsr_jobs (user_id, created_at DESC)`);
    await q.query(`CREATE INDEX dsr_jobs_tenant ON dsr_jobs (tenant_id, livemode, created_at DESC) WHERE tenant_id IS NOT NULL`);
    await q.query(`CREATE INDEX dsr_jobs_open ON dsr_jobs (status, created_at) WHERE status IN ('awaiting_confirmation', 'received', 'in_progress')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dsr_jobs`);
  }
}
