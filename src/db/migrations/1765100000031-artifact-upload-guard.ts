import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The checks before an artifact's row goes in, as one function, so that the guard and the INSERT are one
 * statement and one round trip (PostgresArtifactStore.insert; bench:hosted, issue 44) instead of a
 * transaction of five (BEGIN, lock, count, INSERT, COMMIT). It locks the session row, which orders the
 * insert against a concurrent submit and against other uploads of the class, then counts the class's
 * artifacts. VOLATILE: in READ COMMITTED each of its queries takes a fresh snapshot, so the count runs after
 * the lock is granted and sees a concurrent upload that committed meanwhile, as the transaction's own
 * count statement did. `refused` is null when the row may go in.
 */
export class ArtifactUploadGuard1765100000031 implements MigrationInterface {
  name = 'ArtifactUploadGuard1765100000031';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION artifact_insert_refusal(p_session_id text, p_open_statuses text[], p_class text, p_from_page boolean, p_max_per_class integer, OUT refused text, OUT status text)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE n bigint;
      BEGIN
        SELECT s.status INTO status FROM sessions s WHERE s.id = p_session_id FOR UPDATE;
        IF NOT FOUND THEN refused := 'no_session'; RETURN; END IF;
        IF NOT (status = ANY (p_open_statuses)) THEN refused := 'session_state'; RETURN; END IF;
        -- What the service took from a T5 chip (its portrait is an id_document_image) leaves the page's upload limits alone.
        SELECT count(*) INTO n FROM artifacts a WHERE a.session_id = p_session_id AND a.class = p_class AND (a.details->>'source' IS DISTINCT FROM 'chip') = p_from_page;
        IF n >= p_max_per_class THEN refused := 'class_full'; END IF;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION artifact_insert_refusal(text, text[], text, boolean, integer)`);
  }
}
