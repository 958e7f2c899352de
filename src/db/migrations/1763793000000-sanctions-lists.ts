import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Versioned sanctions-list snapshots. Each distinct list version is one row holding the whole
 * normalised snapshot (the index is always rebuilt from complete snapshots, so rows per entry
 * would only multiply inserts; 1763793100000 moves it to compressed bytea); `sanctions_list_current`
 * is the one pointer per list that a load switches in the same transaction as its insert.
 */
export class SanctionsLists1763793000000 implements MigrationInterface {
  name = 'SanctionsLists1763793000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE sanctions_list_versions (
      id bigserial PRIMARY KEY,
      list text NOT NULL,
      version text NOT NULL,
      format text NOT NULL,
      source_file text NOT NULL,
      published_at text,
      entry_count integer NOT NULL,
      warnings jsonb NOT NULL DEFAULT '[]',
      snapshot jsonb NOT NULL,
      loaded_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (list, version)
    )`);
    await q.query(`CREATE TABLE sanctions_list_current (
      list text PRIMARY KEY,
      version_id bigint NOT NULL REFERENCES sanctions_list_versions(id),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`ALTER TABLE tenants ADD COLUMN sanctions_threshold double precision NOT NULL DEFAULT 0.7
      CHECK (sanctions_threshold >= 0.3 AND sanctions_threshold <= 1)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants DROP COLUMN sanctions_threshold`);
    await q.query(`DROP TABLE sanctions_list_current`);
    await q.query(`DROP TABLE sanctions_list_versions`);
  }
}
