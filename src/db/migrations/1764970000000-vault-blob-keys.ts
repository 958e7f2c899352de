import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Artifact ciphertext moves out of PostgreSQL into a blob store (issue 30, docs/architecture.md
 * "Evidence vault"). `blob_key` names the blob of a row stored there; a row without one keeps its
 * bytes in `artifact_blobs` as before, until `vault migrate` moves them. The index serves the
 * orphan sweep, which asks which of a batch of stored keys some row still names.
 */
export class VaultBlobKeys1764970000000 implements MigrationInterface {
  name = 'VaultBlobKeys1764970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE artifacts ADD COLUMN blob_key text`);
    await q.query(`CREATE INDEX artifacts_blob_key ON artifacts (blob_key) WHERE blob_key IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX artifacts_blob_key`);
    await q.query(`ALTER TABLE artifacts DROP COLUMN blob_key`);
  }
}
