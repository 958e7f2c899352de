import { DomainError } from '../errors';

export const DSR_KINDS = ['export', 'rectification', 'erasure', 'restriction', 'objection', 'review', 'biometric_purge'] as const;
export type DsrKind = (typeof DSR_KINDS)[number];

export const DSR_STATUSES = ['awaiting_confirmation', 'received', 'in_progress', 'completed', 'denied', 'failed'] as const;
export type DsrStatus = (typeof DSR_STATUSES)[number];

/**
 * The one state machine of every DSR job (docs/data-rights.md, "DSR jobs"), enforced here and
 * nowhere else. A delegated request waits for the user in `awaiting_confirmation`; a request the
 * user makes is `received` at once. Work in progress may still be denied (the user was deleted
 * meanwhile) or fail; the three ends are final.
 */
const TRANSITIONS: Record<DsrStatus, readonly DsrStatus[]> = {
  awaiting_confirmation: ['received', 'denied'],
  received: ['in_progress', 'completed', 'denied', 'failed'],
  in_progress: ['completed', 'denied', 'failed'],
  completed: [],
  denied: [],
  failed: [],
};

export const OPEN_DSR_STATUSES: readonly DsrStatus[] = ['awaiting_confirmation', 'received', 'in_progress'];
export const SETTLED_DSR_STATUSES: readonly DsrStatus[] = ['completed', 'denied', 'failed'];

export const isDsrKind = (v: unknown): v is DsrKind => typeof v === 'string' && (DSR_KINDS as readonly string[]).includes(v);
export const isDsrStatus = (v: unknown): v is DsrStatus => typeof v === 'string' && (DSR_STATUSES as readonly string[]).includes(v);

export const canTransitionDsr = (from: DsrStatus, to: DsrStatus): boolean => TRANSITIONS[from].includes(to);

export function assertDsrTransition(from: DsrStatus, to: DsrStatus): void {
  if (!canTransitionDsr(from, to)) throw new DomainError('invalid_state', `A data request in status ${from} cannot move to ${to}`);
}
