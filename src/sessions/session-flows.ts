import type { PreparedSql } from '../db/prepared-sql';
import { DomainError } from '../errors';

/**
 * What creating a session reads of its flow (D2): its id, highest tier and defaults, and the row's
 * version (PostgreSQL's `xmin`, which every UPDATE of the row changes).
 */
export type SessionFlow = { id: string; maxTier: string; redirectUrl: string | null; locale: string; version: string };

const COLUMNS = 'id, max_tier AS "maxTier", redirect_url AS "redirectUrl", locale, xmin::text AS version';
const BY_ID = `SELECT ${COLUMNS} FROM flows WHERE tenant_id = $1 AND id = $2`;
const DEFAULT = `SELECT ${COLUMNS} FROM flows WHERE tenant_id = $1 AND is_default AND $2::text = 'default'`;

/** Entries kept at most; past it the cache starts again (a flow read again costs one query). */
const MAX_ENTRIES = 10_000;

/**
 * The flows sessions are created with, remembered per instance so a creation does not read its flow
 * every time (docs/benchmarks.md, "Session creation"). A remembered flow is never trusted on its own:
 * the statement that writes the session checks, in the database, that the flow still has the version
 * read (`SessionCreateStatement`), and a creation whose flow changed since is done again with the flow
 * read afresh (`SessionService.create`). So a flow changed through any instance is seen by the next
 * creation on every instance, with no message between them. Unknown flows are not remembered.
 */
export class SessionFlows {
  private readonly known = new Map<string, SessionFlow>();

  constructor(private readonly sql: PreparedSql) {}

  /** The remembered flow, or undefined. */
  remembered(tenantId: string, flowId: string): SessionFlow | undefined {
    return this.known.get(key(tenantId, flowId));
  }

  /** The flow as the database has it now (and remembered); `default` names the tenant's default flow. */
  async read(tenantId: string, flowId: string): Promise<SessionFlow> {
    const [flow] = flowId === 'default' ? await this.sql.rows<SessionFlow>('session-flow-default', DEFAULT, [tenantId, flowId]) : await this.sql.rows<SessionFlow>('session-flow-by-id', BY_ID, [tenantId, flowId]);
    if (!flow) throw new DomainError('invalid_request', `Unknown flow_id: ${flowId}`);
    if (this.known.size >= MAX_ENTRIES) this.known.clear();
    this.known.set(key(tenantId, flowId), flow);
    return flow;
  }

  forget(tenantId: string, flowId: string): void {
    this.known.delete(key(tenantId, flowId));
  }
}

const key = (tenantId: string, flowId: string): string => `${tenantId}\u0000${flowId}`;
