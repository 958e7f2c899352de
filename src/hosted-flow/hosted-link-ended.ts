import { TERMINAL_STATUSES, type SessionStatus } from '../sessions/session-status';

/** How long the hosted URL (and the page's credential) still works after the session's terminal state (issue #25 finding 4). */
export const HOSTED_LINK_AFTER_END_MS = 60 * 60 * 1000;

/**
 * True once the session has been in a terminal state for an hour: its hosted URL and page
 * credentials are then refused like a forged one. The terminal state's time is `completed_at`
 * (success, failed) or the last change (expired, withdrawn).
 */
export function hostedLinkEnded(s: { status: string; completedAt: Date | null; updatedAt: Date }, now: Date): boolean {
  if (!TERMINAL_STATUSES.includes(s.status as SessionStatus)) return false;
  const endedAt = s.completedAt ?? s.updatedAt;
  return now.getTime() >= endedAt.getTime() + HOSTED_LINK_AFTER_END_MS;
}
