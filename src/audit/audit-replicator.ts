import type { KeyObject } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AuditLogService } from './audit-log.service';
import { GENESIS_HASH } from '../../entities/audit-canonical';
import { buildSegment, chainBreak, SegmentEntry, segmentKey } from './audit-segment';
import type { WormStore } from './worm-store';
import { systemClock, type Clock } from '../clock';

export const AUDIT_REPLICATE_JOB = 'audit-replicate';
/** 00:30 UTC: the day just ended, and any day a missed night left behind. */
export const AUDIT_REPLICATE_CRON = '30 0 * * *';

const FETCH = 5000;
const MAX_SEGMENT_ENTRIES = 50_000;

type Row = { public_id: string; log_id: string; log_seq: string; prev_hash: string; hash: string; tenant_id: string | null; livemode: boolean | null; action: string; subject_id: string; detail: Record<string, unknown>; created_at: Date | string };

const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * Nightly replication of every audit log to write-once storage (docs/retention-and-audit.md).
 * For each log it takes the entries after the last replicated one, in sequence order, up to the
 * first created today (so a segment never changes once written), cuts them by UTC day and writes
 * each piece as a signed segment. Segments are deterministic, so a rerun (or a second instance)
 * finds the same bytes already stored and only records them; different bytes under an existing
 * key stop the run loudly. Days a missed night left behind are simply the next entries in line.
 */
export class AuditReplicator {
  constructor(
    private readonly db: DataSource,
    private readonly store: WormStore,
    private readonly key: KeyObject,
    private readonly audit: AuditLogService,
    private readonly now: Clock = systemClock,
  ) {}

  async replicate(): Promise<{ segments: number; entries: number; keys: string[]; refused: { log_id: string; seq: number; reason: string }[] }> {
    const now = this.now();
    const todayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const logs: { log_id: string; archived: string }[] = await this.db.query(
      `SELECT h.log_id, coalesce(max(s.last_seq), 0) AS archived FROM audit_log_heads h LEFT JOIN audit_segments s ON s.log_id = h.log_id
       GROUP BY h.log_id, h.last_seq HAVING h.last_seq > coalesce(max(s.last_seq), 0) ORDER BY h.log_id`,
    );
    let segments = 0;
    let entries = 0;
    const keys: string[] = [];
    const refused: { log_id: string; seq: number; reason: string }[] = [];
    const replicateLog = async (log: { log_id: string; archived: string }): Promise<void> => {
      let after = Number(log.archived);
      let pending: SegmentEntry[] = [];
      let pendingDay = '';
      // The hash the next segment must link to: the last one written of this log, or the log's start.
      let linkTo = after === 0 ? GENESIS_HASH : await this.lastWrittenHash(log.log_id, after);
      const flush = async () => {
        if (pending.length === 0) return;
        const broken = chainBreak(pending, linkTo);
        if (broken) throw new ChainBroken(broken.seq, `audit log ${log.log_id} does not verify at sequence ${broken.seq}: ${broken.reason}; no segment signed`);
        keys.push(await this.write(pending, pendingDay));
        linkTo = pending[pending.length - 1].hash;
        segments++;
        entries += pending.length;
        pending = [];
      };
      for (let done = false; !done; ) {
        const rows: Row[] = await this.db.query(
          `SELECT public_id, log_id, log_seq, prev_hash, hash, tenant_id, livemode, action, subject_id, detail, created_at FROM audit_log
           WHERE log_id = $1 AND log_seq > $2 ORDER BY log_seq LIMIT $3`,
          [log.log_id, after, FETCH],
        );
        if (rows.length < FETCH) done = true;
        for (const r of rows) {
          const createdAt = new Date(r.created_at);
          if (createdAt >= todayStart) {
            done = true;
            break;
          }
          const day = dayOf(createdAt);
          // Days only move forward within a segment; an entry stamped earlier than its predecessor stays with it.
          if (pending.length && (day > pendingDay || pending.length >= MAX_SEGMENT_ENTRIES)) await flush();
          if (pending.length === 0) pendingDay = day;
          pending.push(toSegmentEntry(r));
          after = Number(r.log_seq);
        }
      }
      await flush();
    };
    for (const log of logs) {
      try {
        await replicateLog(log);
      } catch (err) {
        if (!(err instanceof ChainBroken)) throw err;
        // Nothing is signed from a broken chain: that log waits for an investigation; the others go on.
        refused.push({ log_id: log.log_id, seq: err.seq, reason: err.message });
      }
    }
    if (segments > 0) await this.audit.append({ tenantId: null, livemode: null, action: 'audit.replicated', subjectId: this.store.description.slice(0, 200), detail: { segments, entries } });
    for (const r of refused) {
      await this.audit.append({ tenantId: null, livemode: null, action: 'audit.replication_refused', subjectId: r.log_id.slice(0, 200), detail: { seq: r.seq, reason: r.reason } });
    }
    return { segments, entries, keys, refused };
  }

  private async lastWrittenHash(logId: string, lastSeq: number): Promise<string> {
    const rows: { last_hash: string }[] = await this.db.query(`SELECT last_hash FROM audit_segments WHERE log_id = $1 AND last_seq = $2`, [logId, lastSeq]);
    if (!rows[0]) throw new Error(`audit log ${logId}: no segment ends at sequence ${lastSeq}; no segment signed`);
    return rows[0].last_hash;
  }

  private async write(entries: SegmentEntry[], day: string): Promise<string> {
    const { body, head } = buildSegment(entries, day, this.key);
    const key = segmentKey(head.log_id, day, head.first_seq);
    if ((await this.store.put(key, body)) === 'exists') {
      const stored = await this.store.get(key);
      if (!stored || !stored.equals(body)) throw new Error(`audit segment ${key} already exists in ${this.store.description} with different bytes: not overwritten; investigate`);
    }
    await this.db.query(
      `INSERT INTO audit_segments (log_id, first_seq, last_seq, day, segment_key, last_hash, written_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (log_id, first_seq) DO NOTHING`,
      [head.log_id, head.first_seq, head.last_seq, day, key, head.last_hash, this.now()],
    );
    return key;
  }
}

class ChainBroken extends Error {
  constructor(
    readonly seq: number,
    message: string,
  ) {
    super(message);
  }
}

function toSegmentEntry(r: Row): SegmentEntry {
  return {
    log_id: r.log_id,
    seq: Number(r.log_seq),
    prev_hash: r.prev_hash,
    hash: r.hash,
    id: r.public_id,
    tenant_id: r.tenant_id,
    livemode: r.livemode,
    action: r.action,
    subject_id: r.subject_id,
    detail: r.detail,
    created_at: new Date(r.created_at).toISOString(),
  };
}
