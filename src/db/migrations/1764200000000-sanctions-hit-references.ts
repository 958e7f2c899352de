import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { storedEntryReference, type StoredSanctionsEntry } from '../../../entities/list-reference';

type StoredHit = { list: string; entry_id: string; list_version: string; reference?: string };

const gunzipAsync = promisify(gunzip);

/**
 * Sanctions hits carry `reference`, the list's own reference (docs/sanctions.md). Results decided
 * before it existed get it from the list version each hit names: for UN and EU entries the
 * reference is not the entry id, so it is read from that stored snapshot.
 */
export class SanctionsHitReferences1764200000000 implements MigrationInterface {
  name = 'SanctionsHitReferences1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const sessions: { id: string; hits: StoredHit[] }[] = await q.query(
      `SELECT id, result->'sanctions_hits' AS hits FROM sessions
        WHERE jsonb_typeof(result->'sanctions_hits') = 'array'
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(result->'sanctions_hits') h WHERE NOT h ? 'reference')`,
    );
    const snapshots = new Map<string, Map<string, StoredSanctionsEntry>>();
    const entriesOf = async (list: string, version: string): Promise<Map<string, StoredSanctionsEntry>> => {
      const key = `${list}\u0000${version}`;
      let entries = snapshots.get(key);
      if (!entries) {
        const rows: { snapshot: { entries: StoredSanctionsEntry[] } | null; snapshot_gz: Buffer | null }[] = await q.query(
          `SELECT snapshot_gz, CASE WHEN snapshot_gz IS NULL THEN snapshot END AS snapshot FROM sanctions_list_versions WHERE list = $1 AND version = $2`,
          [list, version],
        );
        const row = rows[0];
        const stored = row?.snapshot_gz ? (JSON.parse((await gunzipAsync(row.snapshot_gz)).toString('utf8')) as { entries: StoredSanctionsEntry[] }) : row?.snapshot;
        entries = new Map((stored?.entries ?? []).map((e) => [e.entry_id, e]));
        snapshots.set(key, entries);
      }
      return entries;
    };
    for (const s of sessions) {
      const hits: StoredHit[] = [];
      for (const h of s.hits) {
        const entry = h.reference ? undefined : (await entriesOf(h.list, h.list_version)).get(h.entry_id);
        // A version row is never deleted; should one be missing, the entry id is the best reference left.
        hits.push({ ...h, reference: h.reference ?? storedEntryReference(entry ?? h) });
      }
      await q.query(`UPDATE sessions SET result = jsonb_set(result, '{sanctions_hits}', $2::jsonb) WHERE id = $1`, [s.id, JSON.stringify(hits)]);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE sessions SET result = jsonb_set(result, '{sanctions_hits}', (SELECT coalesce(jsonb_agg(h - 'reference'), '[]'::jsonb) FROM jsonb_array_elements(result->'sanctions_hits') h))
        WHERE jsonb_typeof(result->'sanctions_hits') = 'array'`,
    );
  }
}
