import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console's review queue and decisions (issue 27, docs/console.md):
 * - `sessions_review_queue`: a tenant's sessions in manual_review, oldest first, so the queue page
 *   reads one page of the index however many cases wait (10,000 in bench/console-queue.bench.ts);
 * - `review_cases_open_session`: the open review request of a queued session (its deadline);
 * - `audit_log_subject`: a case's audit trail (who opened it and its evidence, who decided);
 * - `tenant_review_settings`: "a second reviewer confirms declines";
 * - `pending_declines`: a decline waiting for that second reviewer (one per session).
 */
export class ConsoleReview1764955000000 implements MigrationInterface {
  name = 'ConsoleReview1764955000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX sessions_review_queue ON sessions (tenant_id, completed_at, id) WHERE status = 'manual_review'`);
    await q.query(`CREATE INDEX review_cases_open_session ON review_cases (session_id) WHERE status = 'open'`);
    await q.query(`CREATE INDEX audit_log_subject ON audit_log (log_id, subject_id, log_seq)`);
    await q.query(`CREATE TABLE tenant_review_settings (
      tenant_id text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
      second_reviewer_for_declines boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE TABLE pending_declines (
      session_id text PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
      tenant_id text NOT NULL,
      member_id text NOT NULL,
      reason text NOT NULL,
      proposed_at timestamptz NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE pending_declines`);
    await q.query(`DROP TABLE tenant_review_settings`);
    await q.query(`DROP INDEX audit_log_subject`);
    await q.query(`DROP INDEX review_cases_open_session`);
    await q.query(`DROP INDEX sessions_review_queue`);
  }
}
