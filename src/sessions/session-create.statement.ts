import type { DataSource } from 'typeorm';
import { SessionEntity, type OutboxEventEntity } from '../../entities';
import type { PreparedSql } from '../db/prepared-sql';
import type { JobInsertStatement } from '../jobs/job-queue';

/** SQLSTATE 22012: raised on purpose by the flow check below. */
const DIVISION_BY_ZERO = '22012';

/**
 * A new session, its outbox rows and its test-mode clock's jobs in ONE statement (data-modifying
 * common table expressions; one statement is atomic, so no transaction is opened around it): a
 * creation was a transaction of five round trips through TypeORM, each a socket write that wakes a
 * PostgreSQL backend (docs/benchmarks.md, "Session creation").
 *
 * The statement also checks that the session's flow still has the version it was read at (the
 * `xmin` of its row, see SessionFlows): when it changed, a division by zero aborts the whole
 * statement and `write` answers null, so the caller reads the flow again and builds the session anew.
 */
export class SessionCreateStatement {
  private readonly columns: { property: string; column: string; type: string }[];
  private readonly texts = new Map<string, string>();

  constructor(
    db: DataSource,
    private readonly sql: PreparedSql,
  ) {
    // The session's columns come from the entity's TypeORM metadata: one mapping, the entity's (as SessionReader).
    this.columns = db.getMetadata(SessionEntity).columns.map((c) => ({ property: c.propertyName, column: c.databaseName, type: String(c.type) }));
  }

  /**
   * Writes them; the outbox rows' `seq` is filled in. Null when the flow is no longer at
   * `flowVersion` (nothing was written). `jobs`: pg-boss's insert of the clock's jobs (JobQueue.insertStatement), or null.
   */
  async write(session: SessionEntity, events: OutboxEventEntity[], flowVersion: string, jobs: JobInsertStatement | null): Promise<OutboxEventEntity[] | null> {
    const row = session as unknown as Record<string, unknown>;
    const values: unknown[] = [
      ...(jobs?.values ?? []),
      ...this.columns.map((c) => {
        const v = row[c.property] ?? null;
        return c.type === 'jsonb' && v !== null ? JSON.stringify(v) : v;
      }),
      session.flowId,
      session.tenantId,
      flowVersion,
      JSON.stringify(events.map((e) => ({ event_id: e.eventId, type: e.type, tenant_id: e.tenantId, livemode: e.livemode, session_id: e.sessionId, payload: e.payload, created_at: e.createdAt }))),
    ];
    const text = this.textFor(jobs);
    let rows: { event_id: string; seq: string }[];
    try {
      rows = await this.sql.rows(jobs ? 'session-create-with-jobs' : 'session-create', text, values);
    } catch (err) {
      if ((err as { code?: string }).code === DIVISION_BY_ZERO) return null;
      throw err;
    }
    const seqOf = new Map(rows.map((r) => [r.event_id, r.seq]));
    return events.map((e) => Object.assign(e, { seq: seqOf.get(e.eventId)! }));
  }

  /** The statement's text, the same for every creation with the same job expressions: built once. */
  private textFor(jobs: JobInsertStatement | null): string {
    const key = jobs?.ctes.join(',\n') ?? '';
    let text = this.texts.get(key);
    if (text !== undefined) return text;
    let n = jobs?.values.length ?? 0;
    const param = (type: string): string => `$${++n}::${type}`;
    const sessionValues = this.columns.map((c) => param(c.type));
    const flowCheck = `(SELECT 1 / count(*) FROM flows WHERE id = ${param('text')} AND tenant_id = ${param('text')} AND xmin = ${param('text')}::xid) = 1`;
    const outbox = param('text');
    text = `WITH ${[
      ...(jobs?.ctes ?? []),
      `new_session AS (INSERT INTO sessions (${this.columns.map((c) => c.column).join(', ')}) SELECT ${sessionValues.join(', ')} WHERE ${flowCheck} RETURNING id)`,
    ].join(',\n')}
INSERT INTO outbox_events (event_id, type, tenant_id, livemode, session_id, payload, created_at)
SELECT e.event_id, e.type, e.tenant_id, e.livemode, new_session.id, e.payload, e.created_at
  FROM json_to_recordset(${outbox}::json) AS e(event_id text, type text, tenant_id text, livemode boolean, session_id text, payload jsonb, created_at timestamptz)
  JOIN new_session ON new_session.id = e.session_id
RETURNING event_id, seq::text AS seq${jobs ? ', (SELECT count(*) FROM jobs_sent) AS jobs' : ''}`;
    this.texts.set(key, text);
    return text;
  }
}
