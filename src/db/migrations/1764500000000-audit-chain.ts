import { MigrationInterface, QueryRunner } from 'typeorm';
import { entryHash, GENESIS_HASH, logIdOf } from '../../../entities/audit-canonical';

/**
 * The hash-chained, append-only audit trail (docs/retention-and-audit.md). Every entry belongs to
 * one log (a tenant's per mode, or the service's), has its position in that log, the hash of the
 * previous entry and its own hash. `audit_log_heads` holds each log's last position and hash: its
 * row lock makes one appender per log at a time. A trigger refuses UPDATE, DELETE and TRUNCATE,
 * whoever asks. Purged artifacts lose their capture details, so `details` may be NULL.
 */
export class AuditChain1764500000000 implements MigrationInterface {
  name = 'AuditChain1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_log ALTER COLUMN tenant_id DROP NOT NULL, ALTER COLUMN livemode DROP NOT NULL`);
    await q.query(`ALTER TABLE audit_log ADD COLUMN log_id text, ADD COLUMN log_seq bigint, ADD COLUMN prev_hash text, ADD COLUMN hash text`);
    await q.query(`CREATE TABLE audit_log_heads (
      log_id text PRIMARY KEY,
      last_seq bigint NOT NULL,
      last_hash text NOT NULL
    )`);
    // Entries written before the chain existed are chained now, in their order, by the same encoding.
    const heads = new Map<string, { seq: number; hash: string }>();
    for (let after = '0'; ; ) {
      const rows: { seq: string; public_id: string; tenant_id: string | null; livemode: boolean | null; action: string; subject_id: string; detail: Record<string, unknown>; created_at: Date }[] =
        await q.query(`SELECT seq, public_id, tenant_id, livemode, action, subject_id, detail, created_at FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT 500`, [after]);
      if (rows.length === 0) break;
      for (const r of rows) {
        const logId = logIdOf(r.tenant_id, r.livemode);
        const head = heads.get(logId) ?? { seq: 0, hash: GENESIS_HASH };
        const createdAt = new Date(r.created_at);
        const fields = { logId, logSeq: head.seq + 1, prevHash: head.hash, id: r.public_id, tenantId: r.tenant_id, livemode: r.livemode, action: r.action, subjectId: r.subject_id, detail: r.detail, createdAt: createdAt.toISOString() };
        const hash = entryHash(fields);
        await q.query(`UPDATE audit_log SET log_id = $2, log_seq = $3, prev_hash = $4, hash = $5, created_at = $6 WHERE seq = $1`, [r.seq, logId, fields.logSeq, fields.prevHash, hash, createdAt]);
        heads.set(logId, { seq: fields.logSeq, hash });
      }
      after = rows[rows.length - 1].seq;
    }
    for (const [logId, h] of heads) await q.query(`INSERT INTO audit_log_heads (log_id, last_seq, last_hash) VALUES ($1, $2, $3)`, [logId, h.seq, h.hash]);
    await q.query(`ALTER TABLE audit_log ALTER COLUMN log_id SET NOT NULL, ALTER COLUMN log_seq SET NOT NULL, ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX audit_log_position ON audit_log (log_id, log_seq)`);
    await q.query(`CREATE INDEX audit_log_log_time ON audit_log (log_id, created_at)`);
    await q.query(`CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(`CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`);
    await q.query(`CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`);
    await q.query(`ALTER TABLE artifacts ALTER COLUMN details DROP NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER audit_log_no_truncate ON audit_log`);
    await q.query(`DROP TRIGGER audit_log_no_update_delete ON audit_log`);
    await q.query(`DROP FUNCTION audit_log_append_only()`);
    await q.query(`DROP INDEX audit_log_log_time`);
    await q.query(`DROP INDEX audit_log_position`);
    await q.query(`DROP TABLE audit_log_heads`);
    await q.query(`ALTER TABLE audit_log DROP COLUMN log_id, DROP COLUMN log_seq, DROP COLUMN prev_hash, DROP COLUMN hash`);
  }
}
