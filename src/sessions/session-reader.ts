import type { DataSource, EntityManager } from 'typeorm';
import { SessionEntity } from '../../entities';
import { CoalescingReader } from '../db/coalescing-reader';
import type { PreparedSql } from '../db/prepared-sql';
import type { Actor } from '../auth/actor';
import { SESSION_ID_PATTERN } from '../ids';

/**
 * Sessions by id: the hottest read of the service (every poll, every GraphQL `session`). One
 * hand-written statement, because TypeORM's query builder spent more CPU building and mapping it
 * than PostgreSQL spent answering. This is the one batching layer of session reads: concurrent
 * reads (of one request or of many) share a query (CoalescingReader), each still answered by a
 * query that started after it asked. Who may see a session is written below it, once for every transport.
 */
export class SessionReader {
  private readonly reader: CoalescingReader<string, SessionEntity>;

  constructor(db: DataSource, sql: PreparedSql) {
    // The columns and their properties come from the entity's TypeORM metadata: one mapping, the entity's.
    const columns = db.getMetadata(SessionEntity).columns.map((c) => ({ property: c.propertyName, column: c.databaseName }));
    const select = `SELECT ${columns.map((c) => `s.${c.column}`).join(', ')} FROM sessions s WHERE s.id = ANY($1::text[])`;
    const toEntity = (row: Record<string, unknown>): SessionEntity => {
      const entity = new SessionEntity() as unknown as Record<string, unknown>;
      for (const c of columns) entity[c.property] = row[c.column];
      return Object.freeze(entity) as unknown as SessionEntity; // frozen: concurrent requests for one session share it
    };
    this.reader = new CoalescingReader(async (ids) => {
      const rows = await sql.rows<Record<string, unknown>>('select-sessions-by-id', select, [ids]);
      return new Map(rows.map((r) => [r.id as string, toEntity(r)]));
    }, (id) => id);
  }

  /** The session `id` when it is the tenant's (of either mode: the tenant's own staff in the console), else null. */
  async ofTenant(tenantId: string, id: string): Promise<SessionEntity | null> {
    const s = await this.reader.read(id);
    return s && s.tenantId === tenantId ? s : null;
  }

  /** The session `id`, whoever asks, or null. */
  async byId(id: string): Promise<SessionEntity | null> {
    return (await this.reader.read(id)) ?? null;
  }

  /**
   * The session `id` when `actor` may see it, else null: an id the actor cannot name is never read,
   * and a session found is kept only when the actor may see it (canSee).
   */
  async visibleTo(actor: Actor, id: string): Promise<SessionEntity | null> {
    if (!mayName(actor, id)) return null;
    const s = await this.byId(id);
    return s && canSee(actor, s) ? s : null;
  }

  // The reads below run on the caller's connection: inside its transaction (a row lock that orders the
  // caller's write, or a read of what the transaction itself wrote), or now, past the coalescing reader.

  /**
   * A SQL expression for the user the session `sessionIdSql` is bound to (null: unbound), for a caller's query that
   * needs the binding beside its own row in one round trip (an evidence open reads its artifact with it).
   */
  static boundUserSql(sessionIdSql: string): string {
    return `(SELECT user_id FROM sessions WHERE id = ${sessionIdSql})`;
  }

  /** Locks session `id` for the rest of `m`'s transaction when it is the tenant's in that mode; false when it is not. */
  static async lockOfTenant(m: EntityManager, id: string, scope: { tenantId: string; livemode: boolean }): Promise<boolean> {
    const rows: { id: string }[] = await m.query(`SELECT id FROM sessions WHERE id = $1 AND tenant_id = $2 AND livemode = $3 FOR UPDATE`, [id, scope.tenantId, scope.livemode]);
    return rows.length > 0;
  }

  /** The person's review written into session `id`'s result (by the decision `m`'s transaction made), if any. */
  static async reviewOf(m: EntityManager, id: string): Promise<{ reviewedAt: string | null; reason: string | null } | null> {
    const rows: { reviewed_at: string | null; reason: string | null }[] = await m.query(
      `SELECT result->'review'->>'reviewed_at' AS reviewed_at, result->'review'->>'reason' AS reason FROM sessions WHERE id = $1`,
      [id],
    );
    return rows[0] ? { reviewedAt: rows[0].reviewed_at, reason: rows[0].reason } : null;
  }

  /**
   * Each tenant and mode with a session bound to `userId`, `active` when one of them stands now or is still
   * running (the tenants an erasure or purge must tell), in tenant order.
   */
  static async tenantsOfUser(q: DataSource | EntityManager, userId: string): Promise<{ tenantId: string; livemode: boolean; active: boolean }[]> {
    const rows: { tenant_id: string; livemode: boolean; active: boolean }[] = await q.query(
      `SELECT tenant_id, livemode, bool_or(status IN ('success', 'created', 'in_progress', 'processing', 'manual_review')) AS active
         FROM sessions WHERE user_id = $1 GROUP BY tenant_id, livemode ORDER BY tenant_id, livemode`,
      [userId],
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, livemode: r.livemode, active: r.active }));
  }

  /**
   * The sessions bound to `userId` at every tenant, newest first (`sessionId`: that one only), each with the name
   * its tenant shows itself by (its flow's display name, else the tenant's).
   */
  static async ofUser(q: DataSource | EntityManager, userId: string, only: { sessionId: string } | { limit: number }): Promise<UserSessionRow[]> {
    const [where, params] = 'sessionId' in only ? ['s.user_id = $1 AND s.id = $2', [userId, only.sessionId]] : ['s.user_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT $2', [userId, only.limit]];
    return q.query(
      `SELECT s.id, coalesce(nullif(f.display_name, ''), t.name) AS tenant_name, s.status, s.tier, s.livemode, s.created_at, s.completed_at
         FROM sessions s JOIN flows f ON f.id = s.flow_id JOIN tenants t ON t.id = s.tenant_id
        WHERE ${where}`,
      params,
    );
  }
}

/** A session of a user's, as SessionReader.ofUser reads it. */
export type UserSessionRow = { id: string; tenant_name: string; status: string; tier: string; livemode: boolean; created_at: Date; completed_at: Date | null };

/** What decides whether a credential may see a session. */
export type SessionOwnership = { id: string; tenantId: string; livemode: boolean };

/**
 * Who may see a session, written once for REST, GraphQL and WebSocket: a credential of the
 * session's tenant in the session's mode; a session's client_secret only that session. Anything
 * else is answered as if the session did not exist.
 */
export function canSee(actor: Actor, s: SessionOwnership): boolean {
  if (actor.kind === 'end_user' || actor.kind === 'hosted_page') return false; // a user reads their sessions through /v1/me, a page its own through /v1/hosted, never by id
  return s.tenantId === actor.tenantId && s.livemode === actor.livemode && (actor.kind !== 'session_client' || actor.sessionId === s.id);
}

/** Could `id` name a session this actor may see? False spares the database a read whose answer is known. */
export function mayName(actor: Actor, id: string): boolean {
  if (actor.kind === 'end_user' || actor.kind === 'hosted_page') return false;
  return SESSION_ID_PATTERN.test(id) && (actor.kind !== 'session_client' || actor.sessionId === id);
}
