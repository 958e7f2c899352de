import { addBusinessDays, addDays } from './business-days';
import type { DsrKind } from './dsr-job-status';

/** Timing constants of data rights (docs/data-rights.md, "Deadlines"). */
export const ACKNOWLEDGE_BUSINESS_DAYS = 3;
export const COMPLETION_DAYS = 30;
export const REVIEW_BUSINESS_DAYS = 7;
/** A delegated request the user has not confirmed by then is denied with `not_confirmed`. */
export const CONFIRMATION_DAYS = 7;

export function dsrDeadlines(kind: DsrKind, receivedAt: Date): { acknowledgeBy: Date; expectedBy: Date } {
  return {
    acknowledgeBy: addBusinessDays(receivedAt, ACKNOWLEDGE_BUSINESS_DAYS),
    expectedBy: kind === 'review' ? addBusinessDays(receivedAt, REVIEW_BUSINESS_DAYS) : addDays(receivedAt, COMPLETION_DAYS),
  };
}
