import { DataSource } from 'typeorm';
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
}

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
