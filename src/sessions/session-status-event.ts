import { OutboxEventEntity, SessionEntity } from '../../entities';
import type { DomainError } from '../errors';
import { SESSION_STATUS_CHANGED } from './session-events';
import type { SessionResult } from '../../entities/session-result.document';
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
  userSub?: string | null;
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
  /** The end user the session is bound to, if any: watchers re-apply the data-rights rule to them (never sent to clients). */
  userId: string | null;
  session: SessionSnapshot;
};

/**
 * The last item of a watch that the read rule ended, in place of a status: the subscription's
 * resolver raises `error` (e.g. `user_restricted` once the bound user restricts processing), so
 * the client receives that error and then `complete`.
 */
export type SessionWatchRefusal = { sessionId: string; error: DomainError };

/** What a session watch yields: status changes, and at most one refusal, last. */
export type SessionWatchItem = SessionStatusEvent | SessionWatchRefusal;

export const isRefusal = (item: SessionWatchItem): item is SessionWatchRefusal => 'error' in item;

/**
 * What a caller may see of a session (no tenant, no secret hash), the one shape the GraphQL mapper
 * reads: a SessionEntity is one as it stands, and a snapshot becomes one through `viewOfSnapshot`.
 */
export type SessionView = Pick<
  SessionEntity,
  'id' | 'status' | 'tier' | 'referenceId' | 'result' | 'createdAt' | 'completedAt' | 'expiresAt' | 'livemode' | 'flowId' | 'redirectUrl' | 'locale' | 'metadata'
> & { userSub?: string | null };

/** A snapshot back to the view (its dates restored). */
export function viewOfSnapshot(s: SessionSnapshot): SessionView {
  return { ...s, createdAt: new Date(s.createdAt), completedAt: s.completedAt ? new Date(s.completedAt) : null, expiresAt: new Date(s.expiresAt) };
}

export function toSnapshot(s: SessionEntity): SessionSnapshot {
  return {
    id: s.id,
    status: s.status as SessionStatus,
    tier: s.tier,
    referenceId: s.referenceId,
    userSub: s.userSub,
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
        userId: session.userId ?? null,
        session: { ...base, status, completedAt: final ? base.completedAt : completedAt, result: final ? base.result : null },
      };
    });
}

export const isTerminal = (status: string): boolean => (TERMINAL_STATUSES as readonly string[]).includes(status);

/** Compares two `seq` values (decimal bigint strings) without losing precision. */
export const seqAfter = (a: string, b: string): boolean => BigInt(a) > BigInt(b);
