import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Snapshots move from jsonb to gzip-compressed JSON in bytea. Nothing ever queries inside a
 * snapshot, and parsing a full list (~30 MB of JSON) into jsonb took the embedded PostgreSQL
 * about 10-20 s, during which every other connection waits; the compressed bytes (~2 MB) are
 * stored in well under a second. Rows written before keep their jsonb and are still readable.
 */
export class SanctionsSnapshotGzip1763793100000 implements MigrationInterface {
  name = 'SanctionsSnapshotGzip1763793100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sanctions_list_versions ADD COLUMN snapshot_gz bytea`);
    await q.query(`ALTER TABLE sanctions_list_versions ALTER COLUMN snapshot DROP NOT NULL`);
    await q.query(`ALTER TABLE sanctions_list_versions ADD CONSTRAINT sanctions_list_versions_has_snapshot CHECK (snapshot IS NOT NULL OR snapshot_gz IS NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM sanctions_list_current c USING sanctions_list_versions v WHERE v.id = c.version_id AND v.snapshot IS NULL`);
    await q.query(`DELETE FROM sanctions_list_versions WHERE snapshot IS NULL`);
    await q.query(`ALTER TABLE sanctions_list_versions DROP CONSTRAINT sanctions_list_versions_has_snapshot`);
    await q.query(`ALTER TABLE sanctions_list_versions ALTER COLUMN snapshot SET NOT NULL`);
    await q.query(`ALTER TABLE sanctions_list_versions DROP COLUMN snapshot_gz`);
  }
}
