import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every session's decision history (docs/decisions.md D16): the pipeline's automated decision and each
 * human one, oldest first. Rows go with their session (erasure deletes sessions, so their history too).
 */
export class SessionDecisions1764920000000 implements MigrationInterface {
  name = 'SessionDecisions1764920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE session_decisions (
        id text PRIMARY KEY,
        session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        livemode boolean NOT NULL,
        source text NOT NULL CHECK (source IN ('automated', 'human')),
        decision text NOT NULL,
        reason text,
        reviewer_id text,
        requested_by text,
        from_status text NOT NULL,
        to_status text NOT NULL,
        policy_version text,
        checks jsonb,
        decided_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX session_decisions_session ON session_decisions (session_id, decided_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE session_decisions`);
  }
}
