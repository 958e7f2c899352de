import type { DataSource } from 'typeorm';
import type { Actor } from '../auth/actor';
import { CoalescingReader } from '../db/coalescing-reader';
import { DomainError, notFound } from '../errors';

/** An end user's data-rights state (docs/data-rights.md, "User data lifecycle"). */
export const USER_STATES = ['active', 'restricted', 'soft_deleted', 'purged'] as const;
export type UserState = (typeof USER_STATES)[number];

export const userRestricted = (): DomainError =>
  new DomainError('user_restricted', 'The end user has restricted the processing of their data; their sessions cannot be read until they lift it');

/**
 * The data-rights rule on a tenant's reads of a user's sessions, written once for REST, GraphQL
 * and WebSocket: a session bound to a deleted (or purged) user is answered as if it did not exist;
 * one bound to a restricted user is refused with `user_restricted` (409). Unbound sessions, and
 * the session's `client_secret` (held by the tenant's front end as much as by the user's browser)
 * gets the same answer as a tenant key (issue #25, finding 7). The end user's own token never reads
 * sessions through here.
 *
 * States are read by a query that started after the read asked (CoalescingReader), so a
 * restriction applies from the moment it commits, on every instance.
 */
export class UserAccessGate {
  private readonly reader: CoalescingReader<string, UserState>;

  constructor(private readonly db: DataSource) {
    this.reader = new CoalescingReader(async (ids) => {
      const rows: { id: string; state: UserState }[] = await db.query(`SELECT id, state FROM users WHERE id = ANY($1::text[])`, [ids]);
      return new Map(rows.map((r) => [r.id, r.state]));
    }, (id) => id);
  }

  async stateOf(userId: string): Promise<UserState | null> {
    return (await this.reader.read(userId)) ?? null;
  }

  /** Null when the session must read as absent; the session itself when it may be read; throws `user_restricted`. */
  async filter<S extends { userId?: string | null }>(actor: Pick<Actor, 'kind'> | { kind: 'console_member' }, session: S | null): Promise<S | null> {
    if (!session?.userId || actor.kind === 'end_user') return session;
    const refusal = await this.refusalFor(session.userId);
    if (refusal?.code === 'not_found') return null;
    if (refusal) throw refusal;
    return session;
  }

  /**
   * What a read of something of this user's is answered now: null when it may go on, `not_found`
   * for a deleted (or purged, or unknown) user, `user_restricted` for a restricted one. For the
   * links that are their own credential (evidence links), checked when the link is opened.
   */
  async refusalFor(userId: string, what = 'Session'): Promise<DomainError | null> {
    const state = await this.stateOf(userId);
    if (state === 'restricted') return userRestricted();
    if (state === 'soft_deleted' || state === 'purged') return notFound(what);
    return null;
  }

  /** Refuses work on a user who may not be processed now (binding a session, running checks). */
  async assertProcessable(userId: string): Promise<void> {
    const state = await this.stateOf(userId);
    if (state === 'restricted') throw userRestricted();
    if (state === 'soft_deleted' || state === 'purged') throw new DomainError('not_found', 'User not found');
  }
}

/** SQL for list queries: sessions of users a tenant may no longer see (deleted or restricted) are left out of lists. */
export const LISTABLE_SESSION_SQL = `(s.user_id IS NULL OR NOT EXISTS (SELECT 1 FROM users u WHERE u.id = s.user_id AND u.state <> 'active'))`;
