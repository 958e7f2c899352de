import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk import jobs (docs/decisions.md D17, docs/api-behaviour.md "Bulk import"). Each record is kept
 * sealed (it may hold names and an email) until its batch is processed; then only its outcome stays:
 * line, reference_id, the session made or the reason it was not. `outcome` is null until the batch
 * that holds the record commits, so a restarted job picks up exactly the records not yet done.
 */
export class BulkImports1764960000000 implements MigrationInterface {
  name = 'BulkImports1764960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bulk_imports (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        livemode boolean NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'processing', 'completed')),
        total integer NOT NULL,
        created integer NOT NULL DEFAULT 0,
        duplicates integer NOT NULL DEFAULT 0,
        rejected integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await q.query(`CREATE INDEX bulk_imports_tenant ON bulk_imports (tenant_id, livemode, created_at)`);
    await q.query(`
      CREATE TABLE bulk_import_records (
        import_id text NOT NULL REFERENCES bulk_imports(id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        livemode boolean NOT NULL,
        line integer NOT NULL,
        reference_id text,
        record_sealed text,
        email_sealed text,
        outcome text CHECK (outcome IN ('created', 'duplicate', 'rejected')),
        session_id text,
        error_code text,
        error_message text,
        PRIMARY KEY (import_id, line)
      )`);
    // The job's next batch: records of one import not yet processed, in line order.
    await q.query(`CREATE INDEX bulk_import_records_pending ON bulk_import_records (import_id, line) WHERE outcome IS NULL`);
    // The database's own guard behind the job's duplicate check: across every import of a tenant and
    // mode, one reference makes at most one session (a batch that would break it rolls back and is redone).
    await q.query(`CREATE UNIQUE INDEX bulk_import_records_reference ON bulk_import_records (tenant_id, livemode, reference_id) WHERE outcome = 'created' AND reference_id IS NOT NULL`);
    // Mail still owed for created records (sent after the batch commits, at least once).
    await q.query(`CREATE INDEX bulk_import_records_unmailed ON bulk_import_records (import_id, line) WHERE email_sealed IS NOT NULL AND outcome = 'created'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bulk_import_records`);
    await q.query(`DROP TABLE bulk_imports`);
  }
}
