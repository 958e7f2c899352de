import { DataSource } from 'typeorm';
import { SessionEntity } from '../../entities';
import { CoalescingReader } from '../db/coalescing-reader';
import type { PreparedSql } from '../db/prepared-sql';

/**
 * Sessions by id: the hottest read of the service (every poll, every GraphQL `session`). One
 * hand-written statement, because TypeORM's query builder spent more CPU building and mapping it
 * than PostgreSQL spent answering. This is the one batching layer of session reads: concurrent
 * reads (of one request or of many) share a query (CoalescingReader), each still answered by a
 * query that started after it asked. Who may see what is decided by the caller (session-visibility.ts).
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
}
