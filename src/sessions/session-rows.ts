import { DataSource } from 'typeorm';
import { SessionEntity } from '../../entities';
import { CoalescingReader } from '../db/coalescing-reader';
import type { PreparedSql } from '../db/prepared-sql';

type VisibleSession = { id: string; tenantId: string; livemode: boolean };
const keyOf = (k: VisibleSession): string => `${k.id}\u0000${k.tenantId}\u0000${k.livemode}`;

/**
 * Sessions by id, as one tenant and mode may see them: the hottest read of the service (every poll,
 * every GraphQL `session`). One hand-written statement, because TypeORM's query builder spent more
 * CPU building and mapping it than PostgreSQL spent answering; and concurrent requests' reads share
 * it (CoalescingReader), each still answered by a query that started after it asked. Every row is
 * matched on id, tenant and mode together, so sharing a query never crosses tenants.
 */
export class SessionReader {
  private readonly reader: CoalescingReader<VisibleSession, SessionEntity>;

  constructor(db: DataSource, sql: PreparedSql) {
    // The columns and their properties come from the entity's TypeORM metadata: one mapping, the entity's.
    const columns = db.getMetadata(SessionEntity).columns.map((c) => ({ property: c.propertyName, column: c.databaseName }));
    const select = `SELECT ${columns.map((c) => `s.${c.column}`).join(', ')} FROM sessions s
      JOIN unnest($1::text[], $2::text[], $3::boolean[]) AS q(id, tenant_id, livemode)
      ON s.id = q.id AND s.tenant_id = q.tenant_id AND s.livemode = q.livemode`;
    const toEntity = (row: Record<string, unknown>): SessionEntity => {
      const entity = new SessionEntity() as unknown as Record<string, unknown>;
      for (const c of columns) entity[c.property] = row[c.column];
      return Object.freeze(entity) as unknown as SessionEntity; // frozen: concurrent requests for one session share it
    };
    this.reader = new CoalescingReader(async (keys) => {
      const rows = await sql.rows<Record<string, unknown>>('select-visible-sessions', select, [keys.map((k) => k.id), keys.map((k) => k.tenantId), keys.map((k) => k.livemode)]);
      return new Map(rows.map((r) => [keyOf({ id: r.id as string, tenantId: r.tenant_id as string, livemode: r.livemode as boolean }), toEntity(r)]));
    }, keyOf);
  }

  async visible(ids: readonly string[], tenantId: string, livemode: boolean): Promise<(SessionEntity | null)[]> {
    const found = await Promise.all(ids.map((id) => this.reader.read({ id, tenantId, livemode })));
    return found.map((s) => s ?? null);
  }
}
