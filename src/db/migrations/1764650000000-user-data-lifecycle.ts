import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The user data lifecycle (docs/data-rights.md, "Erasure, restriction, objection, review"): the
 * states a user moves through and when; the columns a hard purge nulls become nullable (the row
 * stays, so ids in sessions, DSR jobs and the audit log still resolve); objections; review cases
 * of verification decisions; pending changes of verified profile fields (sealed like the fields).
 */
export class UserDataLifecycle1764650000000 implements MigrationInterface {
  name = 'UserDataLifecycle1764650000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users
      ADD COLUMN restricted_at timestamptz,
      ADD COLUMN deleted_at timestamptz,
      ADD COLUMN purge_after timestamptz,
      ADD COLUMN purged_at timestamptz,
      ADD COLUMN objections jsonb NOT NULL DEFAULT '[]',
      ALTER COLUMN email_sealed DROP NOT NULL,
      ALTER COLUMN email_hash DROP NOT NULL,
      ALTER COLUMN password_hash DROP NOT NULL,
      ADD CONSTRAINT users_state CHECK (state IN ('active', 'restricted', 'soft_deleted', 'purged'))`);
    await q.query(`CREATE INDEX users_purge_due ON users (purge_after) WHERE state = 'soft_deleted'`);
    await q.query(`CREATE TABLE review_cases (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(id),
      session_id text NOT NULL REFERENCES sessions(id),
      dsr_job_id text NOT NULL,
      reason text NOT NULL,
      status text NOT NULL CHECK (status IN ('open', 'decided')),
      decision text CHECK (decision IN ('upheld', 'approved', 'declined')),
      note text,
      created_at timestamptz NOT NULL,
      decided_at timestamptz
    )`);
    await q.query(`CREATE INDEX review_cases_open ON review_cases (created_at) WHERE status = 'open'`);
    await q.query(`CREATE INDEX review_cases_user ON review_cases (user_id, session_id)`);
    await q.query(`CREATE TABLE profile_changes (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users(id),
      dsr_job_id text NOT NULL,
      field text NOT NULL CHECK (field IN ('legal_name', 'date_of_birth', 'nationality')),
      value_sealed text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
      note text,
      created_at timestamptz NOT NULL,
      decided_at timestamptz
    )`);
    await q.query(`CREATE INDEX profile_changes_pending ON profile_changes (created_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX profile_changes_user ON profile_changes (user_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE profile_changes`);
    await q.query(`DROP TABLE review_cases`);
    await q.query(`DROP INDEX users_purge_due`);
    await q.query(`ALTER TABLE users DROP CONSTRAINT users_state, DROP COLUMN objections, DROP COLUMN purged_at, DROP COLUMN purge_after, DROP COLUMN deleted_at, DROP COLUMN restricted_at`);
  }
}
