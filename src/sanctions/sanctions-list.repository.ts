import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { DataSource, In } from 'typeorm';
import { SanctionsListCurrentEntity, SanctionsListVersionEntity, TenantEntity } from '../../entities';
import { DomainError } from '../errors';
import { withReferences } from '../../entities/list-reference';
import type { ListId, ListSnapshot } from '../../entities/list-snapshot.document';

/** A stored version without its snapshot. */
export type StoredListVersion = {
  id: string;
  list: ListId;
  version: string;
  format: string;
  sourceFile: string;
  publishedAt: string | null;
  entryCount: number;
  warningCount: number;
  loadedAt: Date;
};

/** The version of one list in force, as the cheap poll sees it; `loadedAt` is renewed when a refresh finds the same content. */
export type CurrentListVersion = { list: ListId; versionId: string; version: string; loadedAt: Date };

export type SaveOutcome = {
  version: StoredListVersion;
  /** False when this exact content was stored before: the existing row is switched in again (its loadedAt renewed). */
  created: boolean;
  previousVersion: string | null;
};

export const MIN_TENANT_THRESHOLD = 0.3;

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

function toStored(v: SanctionsListVersionEntity): StoredListVersion {
  return {
    id: String(v.id),
    list: v.list as ListId,
    version: v.version,
    format: v.format,
    sourceFile: v.sourceFile,
    publishedAt: v.publishedAt,
    entryCount: v.entryCount,
    warningCount: v.warnings.length,
    loadedAt: v.loadedAt,
  };
}

/** Persistence of list versions and the per-list "current" pointer. */
export class SanctionsListRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Stores a snapshot and makes it the list's current version in ONE transaction, so a
   * screening sees either the old or the new version, never neither. The same content loaded
   * again (same version label) re-uses its row.
   */
  async save(snapshot: ListSnapshot): Promise<SaveOutcome> {
    // Compressed before the transaction opens: on the embedded database an open transaction blocks every connection.
    const gzip = await gzipAsync(JSON.stringify(snapshot), { level: 6 });
    return this.db.transaction(async (m) => {
      // Serialises concurrent loads of one list (CLI and refresh job): the pointer moves in load order.
      const previous = await m.query(
        `SELECT v.version FROM sanctions_list_current c JOIN sanctions_list_versions v ON v.id = c.version_id WHERE c.list = $1 FOR UPDATE OF c`,
        [snapshot.list],
      );
      // Identical content loaded again re-uses its row and renews loaded_at: the list is confirmed current as of now.
      const [stored]: { id: string; inserted: boolean }[] = await m.query(
        `INSERT INTO sanctions_list_versions (list, version, format, source_file, published_at, entry_count, warnings, snapshot_gz)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)
         ON CONFLICT (list, version) DO UPDATE SET loaded_at = now()
         RETURNING id, (xmax = 0) AS inserted`,
        [snapshot.list, snapshot.version, snapshot.format, snapshot.source_file, snapshot.published_at ?? null, snapshot.entries.length, JSON.stringify(snapshot.warnings), gzip],
      );
      const repo = m.getRepository(SanctionsListVersionEntity);
      const row = await repo.findOneByOrFail({ id: stored.id });
      await m.query(
        `INSERT INTO sanctions_list_current (list, version_id, updated_at) VALUES ($1, $2, now())
         ON CONFLICT (list) DO UPDATE SET version_id = EXCLUDED.version_id, updated_at = now()`,
        [snapshot.list, row.id],
      );
      return { version: toStored(row), created: stored.inserted, previousVersion: (previous[0]?.version as string | undefined) ?? null };
    });
  }

  /** The cheap query instances poll: one short row per loaded list. */
  async currentVersions(): Promise<CurrentListVersion[]> {
    const rows: { list: string; version_id: string; version: string; loaded_at: Date | string }[] = await this.db.query(
      `SELECT c.list, c.version_id::text AS version_id, v.version, v.loaded_at FROM sanctions_list_current c JOIN sanctions_list_versions v ON v.id = c.version_id ORDER BY c.list`,
    );
    return rows.map((r) => ({ list: r.list as ListId, versionId: r.version_id, version: r.version, loadedAt: new Date(r.loaded_at) }));
  }

  async snapshot(versionId: string): Promise<ListSnapshot> {
    const rows: { snapshot: ListSnapshot | null; snapshot_gz: Buffer | null }[] = await this.db.query(
      `SELECT snapshot_gz, CASE WHEN snapshot_gz IS NULL THEN snapshot END AS snapshot FROM sanctions_list_versions WHERE id = $1`,
      [versionId],
    );
    if (!rows.length) throw new Error(`sanctions list version ${versionId} is missing`);
    const { snapshot_gz, snapshot } = rows[0];
    const stored = snapshot_gz ? (JSON.parse((await gunzipAsync(snapshot_gz)).toString('utf8')) as ListSnapshot) : snapshot!;
    withReferences(stored.entries); // versions loaded before entries carried `reference`
    return stored;
  }

  /** Current version per list, and the recent history of each (newest first). */
  async overview(historyPerList: number): Promise<{ current: Map<ListId, StoredListVersion>; history: Map<ListId, StoredListVersion[]> }> {
    const pointers = await this.db.getRepository(SanctionsListCurrentEntity).find();
    const current = new Map<ListId, StoredListVersion>();
    const history = new Map<ListId, StoredListVersion[]>();
    const repo = this.db.getRepository(SanctionsListVersionEntity);
    if (pointers.length) {
      for (const v of await repo.findBy({ id: In(pointers.map((p) => p.versionId)) })) current.set(v.list as ListId, toStored(v));
    }
    const recent = await repo
      .createQueryBuilder('v')
      .where(`(SELECT count(*) FROM sanctions_list_versions n WHERE n.list = v.list AND n.id > v.id) < :n`, { n: historyPerList })
      .orderBy('v.id', 'DESC')
      .getMany();
    for (const v of recent) {
      const l = v.list as ListId;
      history.set(l, [...(history.get(l) ?? []), toStored(v)]);
    }
    return { current, history };
  }

  async tenantThreshold(tenantId: string): Promise<number> {
    const t = await this.db.getRepository(TenantEntity).findOne({ where: { id: tenantId }, select: { id: true, sanctionsThreshold: true } });
    if (!t) throw new DomainError('not_found', 'Tenant not found');
    return t.sanctionsThreshold;
  }

  async setTenantThreshold(tenantId: string, threshold: number): Promise<void> {
    if (!Number.isFinite(threshold) || threshold < MIN_TENANT_THRESHOLD || threshold > 1) {
      throw new DomainError('invalid_request', `threshold must be between ${MIN_TENANT_THRESHOLD} and 1`);
    }
    const res = await this.db.getRepository(TenantEntity).update({ id: tenantId }, { sanctionsThreshold: threshold });
    if (!res.affected) throw new DomainError('not_found', 'Tenant not found');
  }
}
