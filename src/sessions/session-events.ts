import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OutboxEventEntity, SessionEntity } from '../../entities';
import { newId } from '../ids';
import type { SessionStatus } from './session-status';

export const SESSION_STATUS_CHANGED = 'session.status_changed';

/**
 * Webhook event types announced on entering these statuses (D22, docs/webhooks.md, "Events"):
 * every terminal status sends exactly one, and `failed`, `withdrawn` and `expired` share
 * `verification.failed`, told apart by `data.status`. The open statuses send none.
 */
const WEBHOOK_EVENT_OF: Partial<Record<SessionStatus, string>> = {
  success: 'verification.completed',
  failed: 'verification.failed',
  withdrawn: 'verification.failed',
  expired: 'verification.failed',
  manual_review: 'verification.manual_review',
};

/** The outbox rows one transition writes: always the status change, and the webhook event where docs/api-behaviour.md names one. */
export function outboxEventsForTransition(s: SessionEntity, from: SessionStatus | null, at: Date): OutboxEventEntity[] {
  const base = { tenantId: s.tenantId, livemode: s.livemode, sessionId: s.id, createdAt: at };
  const rows: Partial<OutboxEventEntity>[] = [
    {
      ...base,
      eventId: newId('evt'),
      type: SESSION_STATUS_CHANGED,
      payload: { session_id: s.id, status: s.status, previous_status: from, tier: s.tier, completed_at: s.completedAt?.toISOString() ?? null, ...(s.userSub ? { user_sub: s.userSub } : {}) },
    },
  ];
  const verification = verificationEventFor(s, at);
  if (verification) rows.push(verification);
  return rows as OutboxEventEntity[];
}

/**
 * The webhook event of the session's current status (`verification.completed`, `.failed` or
 * `.manual_review`), or null when that status has none. Written on entering the status, and again
 * when a finished session is bound to the user who kept it (SessionService.bindFinished). A
 * session withdrawn or expired before its checks ran has no result: its event says so with
 * `tier`, `decision` and `confidence` null and no badges.
 */
export function verificationEventFor(s: SessionEntity, at: Date): OutboxEventEntity | null {
  const webhookType = WEBHOOK_EVENT_OF[s.status as SessionStatus];
  if (!webhookType) return null;
  const row: Partial<OutboxEventEntity> = {
    tenantId: s.tenantId,
    livemode: s.livemode,
    sessionId: s.id,
    createdAt: at,
    eventId: newId('evt'),
    type: webhookType,
    payload: {
      session_id: s.id,
      reference: s.referenceId,
      tier: s.result?.achieved_tier ?? null,
      requested_tier: s.tier,
      status: s.status,
      decision: s.result?.decision ?? null,
      badges: s.result?.badges ?? [],
      confidence: s.result?.confidence ?? null,
      completed_at: s.completedAt?.toISOString() ?? null,
      ...(s.userSub ? { user_sub: s.userSub } : {}),
      // T3/T4: the hits a reviewer acts on, each with the list's own reference (docs/webhooks.md).
      ...(s.result?.sanctions_hits ? { sanctions_hits: s.result.sanctions_hits } : {}),
    },
  };
  return row as OutboxEventEntity;
}

/** Inserts outbox rows inside the caller's transaction; their `seq` is filled in from the database. */
export async function insertOutboxEvents(m: EntityManager, rows: OutboxEventEntity[]): Promise<void> {
  await m.insert(OutboxEventEntity, rows as QueryDeepPartialEntity<OutboxEventEntity>[]);
}
