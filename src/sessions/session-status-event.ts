import type { DataSource } from 'typeorm';
import { OutboxEventEntity, SessionEntity } from '../../entities';
import type { Actor } from '../auth/actor';
import { SESSION_ID_PATTERN } from '../ids';
import { SESSION_STATUS_CHANGED } from './session-events';
import type { SessionResult } from './session-result';
import { SessionStatus, TERMINAL_STATUSES } from './session-status';

/**
 * A session as it was at one committed transition, JSON-safe (ISO strings, no Date objects) so an
 * in-process bus and Redis fan-out deliver exactly the same thing. Never carries the client secret hash.
 */
export type SessionSnapshot = {
  id: string;
  status: SessionStatus;
  tier: string;
  referenceId: string | null;
  result: SessionResult | null;
  createdAt: string;
  completedAt: string | null;
  expiresAt: string;
  livemode: boolean;
  flowId: string;
  redirectUrl: string | null;
  locale: string;
  metadata: Record<string, unknown>;
};

/**
 * One committed status change. `seq` is the outbox row's commit-order number (a bigint as a
 * decimal string): per session it grows with every transition, so subscribers de-duplicate and
 * order by it.
 */
export type SessionStatusEvent = {
  seq: string;
  tenantId: string;
  livemode: boolean;
  session: SessionSnapshot;
};

export function toSnapshot(s: SessionEntity): SessionSnapshot {
  return {
    id: s.id,
    status: s.status as SessionStatus,
    tier: s.tier,
    referenceId: s.referenceId,
    result: s.result,
    createdAt: s.createdAt.toISOString(),
    completedAt: s.completedAt?.toISOString() ?? null,
    expiresAt: s.expiresAt.toISOString(),
    livemode: s.livemode,
    flowId: s.flowId,
    redirectUrl: s.redirectUrl,
    locale: s.locale,
    metadata: s.metadata,
  };
}

/**
 * The status-change events among the outbox rows of one commit, in order. One commit may walk
 * several steps (e.g. a chip submission: in_progress -> processing -> success); each step keeps the
 * status and completed_at its own row recorded, and only the last one carries the result.
 */
export function statusEventsOf(rows: readonly OutboxEventEntity[], session: SessionEntity): SessionStatusEvent[] {
  const base = toSnapshot(session);
  return rows
    .filter((r) => r.type === SESSION_STATUS_CHANGED && r.sessionId === session.id && r.seq !== undefined && r.seq !== null)
    .map((r) => {
      const status = (typeof r.payload.status === 'string' ? r.payload.status : session.status) as SessionStatus;
      const completedAt = typeof r.payload.completed_at === 'string' ? r.payload.completed_at : null;
      const final = status === session.status;
      return {
        seq: String(r.seq),
        tenantId: session.tenantId,
        livemode: session.livemode,
        session: { ...base, status, completedAt: final ? base.completedAt : completedAt, result: final ? base.result : null },
      };
    });
}

export const isTerminal = (status: string): boolean => (TERMINAL_STATUSES as readonly string[]).includes(status);

/** Compares two `seq` values (decimal bigint strings) without losing precision. */
export const seqAfter = (a: string, b: string): boolean => BigInt(a) > BigInt(b);

/**
 * The session's committed state now, with the `seq` of the last status change it reflects, as one
 * statement (one snapshot): a subscriber that registered for live events before calling this can
 * drop every live event with a `seq` not after the returned one and miss nothing. `null` when the
 * actor may not see the session (another tenant, another mode, another session's client secret).
 */
export async function readCurrentStatus(db: DataSource, actor: Actor, id: string): Promise<SessionStatusEvent | null> {
  if (!SESSION_ID_PATTERN.test(id)) return null;
  if (actor.kind === 'session_client' && actor.sessionId !== id) return null;
  const { entities, raw } = await db
    .getRepository(SessionEntity)
    .createQueryBuilder('s')
    .addSelect(
      (q) =>
        q
          .select('MAX(o.seq)::text')
          .from(OutboxEventEntity, 'o')
          .where('o.session_id = s.id AND o.type = :type', { type: SESSION_STATUS_CHANGED }),
      'last_seq',
    )
    .where('s.id = :id AND s.tenant_id = :tenantId AND s.livemode = :livemode', { id, tenantId: actor.tenantId, livemode: actor.livemode })
    .getRawAndEntities<{ last_seq: string | null }>();
  const s = entities[0];
  if (!s) return null;
  return { seq: raw[0]?.last_seq ?? '0', tenantId: s.tenantId, livemode: s.livemode, session: toSnapshot(s) };
}
