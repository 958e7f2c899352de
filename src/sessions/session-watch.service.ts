import type { DataSource } from 'typeorm';
import { OutboxEventEntity, SessionEntity } from '../../entities';
import type { Actor } from '../auth/actor';
import { requireTenantKey } from '../auth/auth.service';
import { DomainError, notFound } from '../errors';
import { SESSION_STATUS_CHANGED } from './session-events';
import { toSnapshot, type SessionStatusEvent } from './session-status-event';
import { canSee, mayName } from './session-reader';

/**
 * The read rule on sessions bound to end users (src/data-rights/user-access.gate.ts, the same one
 * `SessionPolicies.guardRead` applies): the session itself when it may be read, null when it must
 * read as absent, or it throws (`user_restricted`).
 */
export type SessionWatchGuard = <S extends { userId?: string | null }>(actor: Actor, s: S | null) => Promise<S | null>;

/** What one subscription may watch: one session, or (`sessionId` null) every session of the tenant in the credential's mode. */
export type WatchTarget = { actor: Actor; sessionId: string | null; tenantId: string; livemode: boolean };

/**
 * The domain side of live session status (the WebSocket transport in subscriptions/ only routes
 * events): who may watch what, by the same rule as reads (session-reader.ts), and the current
 * state a new watcher starts from.
 */
export class SessionWatchService {
  constructor(
    private readonly db: DataSource,
    private readonly guard: SessionWatchGuard,
  ) {}

  /**
   * `id` given: that session. No `id`: the tenant's sessions in the key's mode (tenant keys with
   * sessions:read), or for a session client_secret its own session. Throws what a read would.
   */
  authorize(actor: Actor | null, id: string | null | undefined): WatchTarget {
    if (!actor) throw new DomainError('unauthorized', 'Missing or invalid credential');
    if (actor.kind === 'end_user' || actor.kind === 'hosted_page') throw notFound();
    if (actor.kind === 'tenant_key') requireTenantKey(actor, 'sessions:read');
    const sessionId = id ?? (actor.kind === 'session_client' ? actor.sessionId : null);
    if (sessionId !== null && actor.kind === 'session_client' && actor.sessionId !== sessionId) throw notFound();
    return { actor, sessionId, tenantId: actor.tenantId, livemode: actor.livemode };
  }

  /**
   * The session's committed state now, with the `seq` of the last status change it reflects, as one
   * statement (one snapshot): a subscriber that registered for live events before calling this can
   * drop every live event with a `seq` not after the returned one and miss nothing. `null` when the
   * actor may not see the session.
   */
  async current(actor: Actor, id: string): Promise<SessionStatusEvent | null> {
    if (!mayName(actor, id)) return null;
    const { entities, raw } = await this.db
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
      .where('s.id = :id', { id })
      .getRawAndEntities<{ last_seq: string | null }>();
    const s = entities[0];
    if (!s || !canSee(actor, s)) return null;
    if (!(await this.guard(actor, s))) return null;
    return { seq: raw[0]?.last_seq ?? '0', tenantId: s.tenantId, livemode: s.livemode, userId: s.userId ?? null, session: toSnapshot(s) };
  }

  /**
   * Whether a watcher may still see a session bound to `userId` (a live event, or a periodic
   * re-check): null when it may, else the error a read would give now (`user_restricted`, or
   * `not_found` for a deleted user). The state is read by a query started after this call.
   */
  async refusal(actor: Actor, userId: string | null): Promise<DomainError | null> {
    if (!userId) return null;
    try {
      return (await this.guard(actor, { userId })) ? null : notFound();
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
  }
}
