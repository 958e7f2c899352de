import { DomainError } from '../errors';

export const SESSION_STATUSES = ['created', 'in_progress', 'processing', 'success', 'failed', 'manual_review', 'expired', 'withdrawn'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** The session state machine of docs/api-behaviour.md, "Session lifecycle", enforced here and nowhere else. */
const TRANSITIONS: Record<SessionStatus, readonly SessionStatus[]> = {
  created: ['in_progress', 'expired', 'withdrawn'],
  in_progress: ['processing', 'expired', 'withdrawn'],
  processing: ['success', 'failed', 'manual_review'],
  manual_review: ['success', 'failed', 'withdrawn'],
  success: [],
  failed: [],
  expired: [],
  withdrawn: [],
};

export const TERMINAL_STATUSES: readonly SessionStatus[] = ['success', 'failed', 'expired', 'withdrawn'];

/** Statuses whose entry stamps `completed_at` (docs/api-behaviour.md, "Session lifecycle"). */
export const COMPLETING_STATUSES: readonly SessionStatus[] = ['success', 'failed', 'manual_review'];

export const canTransition = (from: SessionStatus, to: SessionStatus): boolean => TRANSITIONS[from].includes(to);

export function assertTransition(from: SessionStatus, to: SessionStatus): void {
  if (!canTransition(from, to)) {
    throw new DomainError('invalid_state', `A session in status ${from} cannot move to ${to}`);
  }
}

