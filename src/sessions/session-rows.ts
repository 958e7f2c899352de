import { DataSource } from 'typeorm';
import { SessionEntity } from '../../entities';
import { CoalescingReader } from '../db/coalescing-reader';
import { hotQuery } from '../db/hot-query';
import type { SessionResult } from './session-result';

type SessionRow = {
  id: string;
  tenant_id: string;
  livemode: boolean;
  flow_id: string;
  tier: string;
  status: string;
  reference_id: string | null;
  redirect_url: string | null;
  locale: string;
  metadata: Record<string, unknown>;
  result: SessionResult | null;
  client_secret_hash: string;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  expires_at: Date;
};

const COLUMNS =
  'id, tenant_id, livemode, flow_id, tier, status, reference_id, redirect_url, locale, metadata, result, client_secret_hash, created_at, updated_at, completed_at, expires_at';

const SELECT_VISIBLE = `SELECT ${COLUMNS.split(', ')
  .map((c) => `s.${c}`)
  .join(', ')} FROM sessions s JOIN unnest($1::text[], $2::text[], $3::boolean[]) AS q(id, tenant_id, livemode)
  ON s.id = q.id AND s.tenant_id = q.tenant_id AND s.livemode = q.livemode`;

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

  constructor(db: DataSource) {
    this.reader = new CoalescingReader(async (keys) => {
      const rows = await hotQuery<SessionRow>(db, 'select-visible-sessions', SELECT_VISIBLE, [keys.map((k) => k.id), keys.map((k) => k.tenantId), keys.map((k) => k.livemode)]);
      // Frozen: concurrent requests for one session share the object.
      return new Map(rows.map((r) => [keyOf({ id: r.id, tenantId: r.tenant_id, livemode: r.livemode }), Object.freeze(sessionFromRow(r))]));
    }, keyOf);
  }

  async visible(ids: readonly string[], tenantId: string, livemode: boolean): Promise<(SessionEntity | null)[]> {
    const found = await Promise.all(ids.map((id) => this.reader.read({ id, tenantId, livemode })));
    return found.map((s) => s ?? null);
  }
}

function sessionFromRow(r: SessionRow): SessionEntity {
  const s = new SessionEntity();
  s.id = r.id;
  s.tenantId = r.tenant_id;
  s.livemode = r.livemode;
  s.flowId = r.flow_id;
  s.tier = r.tier;
  s.status = r.status;
  s.referenceId = r.reference_id;
  s.redirectUrl = r.redirect_url;
  s.locale = r.locale;
  s.metadata = r.metadata;
  s.result = r.result;
  s.clientSecretHash = r.client_secret_hash;
  s.createdAt = r.created_at;
  s.updatedAt = r.updated_at;
  s.completedAt = r.completed_at;
  s.expiresAt = r.expires_at;
  return s;
}
