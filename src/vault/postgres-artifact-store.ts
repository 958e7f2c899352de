import { DataSource, EntityManager } from 'typeorm';
import type { ArtifactClass } from './artifact-classes';
import type { ArtifactRecord, ArtifactStore, Inserted, InsertGuard, InsertRefusal, NewArtifact, PurgedArtifact } from './artifact-store';
import { SessionReader } from '../sessions/session-reader';
import type { PreparedSql } from '../db/prepared-sql';

type Row = {
  id: string;
  session_id: string;
  tenant_id: string;
  livemode: boolean;
  user_id: string | null;
  class: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  details: Record<string, unknown> | null;
  iv: Buffer | Uint8Array;
  auth_tag: Buffer | Uint8Array;
  stored_at: Date | string;
  retain_until: Date | string;
  purged_at: Date | string | null;
  blob_key: string | null;
};

const COLUMNS = 'id, session_id, tenant_id, livemode, user_id, class, content_type, size_bytes, sha256, details, iv, auth_tag, stored_at, retain_until, purged_at, blob_key';

const toRecord = (r: Row): ArtifactRecord => ({
  id: r.id,
  sessionId: r.session_id,
  tenantId: r.tenant_id,
  livemode: r.livemode,
  userId: r.user_id,
  class: r.class as ArtifactClass,
  contentType: r.content_type,
  sizeBytes: Number(r.size_bytes),
  sha256: r.sha256,
  details: r.details ?? {},
  iv: Buffer.from(r.iv),
  authTag: Buffer.from(r.auth_tag),
  storedAt: new Date(r.stored_at),
  retainUntil: new Date(r.retain_until),
  purgedAt: r.purged_at === null ? null : new Date(r.purged_at),
  blobKey: r.blob_key,
});

/** The ArtifactStore: rows in `artifacts`; ciphertext in a blob store the row names, or in `artifact_blobs` (bytea) without one. */
export class PostgresArtifactStore implements ArtifactStore {
  constructor(
    private readonly db: DataSource,
    /** The insert, run by every upload, goes as a prepared statement: parsed and planned once per connection, not per upload. */
    private readonly sql: PreparedSql,
  ) {}

  /**
   * One statement, one round trip: the guard (artifact_insert_refusal, migration 1765100000032: the session
   * row locked, its status, the page's submit and the class's count checked, the retention in force read) and,
   * when it refuses nothing, the row dated by that retention and (without a blob store) its ciphertext, all in
   * the statement's own transaction.
   */
  async insert(a: NewArtifact, ciphertext: Buffer | null, guard: InsertGuard): Promise<InsertRefusal | Inserted> {
    const r = guard.retention;
    const rows = await this.sql.rows<{ refused: InsertRefusal['refused'] | null; status: string | null; retain_until: Date | string | null; purge_at_completion: boolean | null }>(
      'insert-artifact',
      `WITH guard AS MATERIALIZED (SELECT * FROM artifact_insert_refusal($2, $15::text[], $6, $16, $17, $19, $13, $20, $21, $22, $23)),
         inserted AS (
           INSERT INTO artifacts (${COLUMNS}, purge_at_completion)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, guard.retain_until, NULL, $14, guard.purge_at_completion FROM guard WHERE guard.refused IS NULL
           RETURNING id
         ),
         bytes AS (INSERT INTO artifact_blobs (artifact_id, ciphertext) SELECT id, $18::bytea FROM inserted WHERE $18::bytea IS NOT NULL)
       SELECT refused, status, retain_until, purge_at_completion FROM guard`,
      [
        a.id, a.sessionId, a.tenantId, a.livemode, a.userId, a.class, a.contentType, a.sizeBytes, a.sha256, JSON.stringify(a.details), a.iv, a.authTag, a.storedAt, a.blobKey,
        guard.openStatuses, a.details.source !== 'chip', guard.maxPerClass, ciphertext,
        guard.refuseSubmitted, r.field, r.byDefault, r.inYears, r.zeroDaySafetyDays,
      ],
    );
    const { refused, status, retain_until, purge_at_completion } = rows[0];
    if (refused === 'no_session' || refused === 'submitted') return { refused };
    if (refused === 'session_state') return { refused, status: status! };
    if (refused === 'class_full') return { refused, max: guard.maxPerClass };
    return { retainUntil: new Date(retain_until!), purgeAtCompletion: purge_at_completion! };
  }

  async find(id: string): Promise<ArtifactRecord | null> {
    const rows: Row[] = await this.db.query(`SELECT ${COLUMNS} FROM artifacts WHERE id = $1`, [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async findWithSessionUser(id: string): Promise<{ record: ArtifactRecord; sessionUserId: string | null } | null> {
    const rows: (Row & { session_user_id: string | null })[] = await this.db.query(
      `SELECT ${COLUMNS.split(', ').map((c) => `a.${c}`).join(', ')}, ${SessionReader.boundUserSql('a.session_id')} AS session_user_id FROM artifacts a WHERE a.id = $1`,
      [id],
    );
    return rows[0] ? { record: toRecord(rows[0]), sessionUserId: rows[0].session_user_id } : null;
  }

  async listBySession(sessionId: string): Promise<ArtifactRecord[]> {
    const rows: Row[] = await this.db.query(`SELECT ${COLUMNS} FROM artifacts WHERE session_id = $1 ORDER BY stored_at, id`, [sessionId]);
    return rows.map(toRecord);
  }

  async ciphertext(id: string): Promise<Buffer | null> {
    const rows: { ciphertext: Buffer | Uint8Array }[] = await this.db.query(`SELECT ciphertext FROM artifact_blobs WHERE artifact_id = $1`, [id]);
    return rows[0] ? Buffer.from(rows[0].ciphertext) : null;
  }

  async blobKeysInUse(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows: { blob_key: string }[] = await this.db.query(`SELECT blob_key FROM artifacts WHERE blob_key = ANY($1::text[])`, [keys]);
    return new Set(rows.map((r) => r.blob_key));
  }

  /** Ids of unpurged artifacts whose ciphertext is still in `artifact_blobs` (what `vault migrate` moves), in id order after `after`. */
  async inDatabase(after: string, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT a.id FROM artifacts a JOIN artifact_blobs b ON b.artifact_id = a.id WHERE a.blob_key IS NULL AND a.purged_at IS NULL AND a.id > $1 ORDER BY a.id LIMIT $2`,
      [after, limit],
    );
    return rows.map((r) => r.id);
  }

  async countInDatabase(): Promise<number> {
    const [{ n }]: { n: string }[] = await this.db.query(`SELECT count(*) AS n FROM artifacts a JOIN artifact_blobs b ON b.artifact_id = a.id WHERE a.blob_key IS NULL AND a.purged_at IS NULL`);
    return Number(n);
  }

  /**
   * Points the row at its blob and drops its bytea, in one transaction; false when the row was
   * purged or moved meanwhile (the caller then deletes the blob it wrote).
   */
  async movedToBlob(id: string, blobKey: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const rows: { id: string }[] = await m.query(`SELECT id FROM artifacts WHERE id = $1 AND blob_key IS NULL AND purged_at IS NULL FOR UPDATE`, [id]);
      if (rows.length === 0) return false;
      await m.query(`UPDATE artifacts SET blob_key = $2 WHERE id = $1`, [id, blobKey]);
      await m.query(`DELETE FROM artifact_blobs WHERE artifact_id = $1`, [id]);
      return true;
    });
  }

  async purgeMany(ids: readonly string[], at: Date, m: EntityManager): Promise<PurgedArtifact[]> {
    if (ids.length === 0) return [];
    // A SELECT around the UPDATE: TypeORM hands an UPDATE's returned rows back as [rows, count].
    // The row stops naming its blob here; the blob itself is deleted once this transaction commits (ArtifactPurger).
    const rows: { id: string; session_id: string; tenant_id: string; livemode: boolean; class: string; blob_key: string | null }[] = await m.query(
      `WITH purged AS (
         UPDATE artifacts a SET purged_at = $2, details = NULL, user_id = NULL, blob_key = NULL
           FROM artifacts was WHERE was.id = a.id AND a.id = ANY($1::text[]) AND a.purged_at IS NULL
         RETURNING a.id, a.session_id, a.tenant_id, a.livemode, a.class, was.blob_key
       ) SELECT * FROM purged ORDER BY id`,
      [ids, at],
    );
    if (rows.length) await m.query(`DELETE FROM artifact_blobs WHERE artifact_id = ANY($1::text[])`, [rows.map((r) => r.id)]);
    return rows.map((r) => ({ id: r.id, sessionId: r.session_id, tenantId: r.tenant_id, livemode: r.livemode, class: r.class as ArtifactClass, blobKey: r.blob_key }));
  }

  async due(now: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(`SELECT id FROM artifacts WHERE purged_at IS NULL AND retain_until <= $1 ORDER BY retain_until LIMIT $2`, [now, limit]);
    return rows.map((r) => r.id);
  }
}
