import type { Actor } from '../auth/actor';
import { SESSION_ID_PATTERN } from '../ids';

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

/**
 * The rule around the read of one session by id: an id the actor cannot name is never read, and a
 * session found is kept only when the actor may see it. `read` fetches the session, whoever asks.
 */
export async function readVisible<S extends SessionOwnership>(actor: Actor, id: string, read: (id: string) => Promise<S | null>): Promise<S | null> {
  if (!mayName(actor, id)) return null;
  const s = await read(id);
  return s && canSee(actor, s) ? s : null;
}
