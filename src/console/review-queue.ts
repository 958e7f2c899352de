import type { EntityManager } from 'typeorm';
import { DomainError } from '../errors';
import { LISTABLE_SESSION_SQL } from '../data-rights/user-access.gate';
import type { Check } from '../../entities/session-result.document';
import { isTier, type Tier } from '../sessions/tiers';
import type { SessionStatus } from '../sessions/session-status';
import { SessionReviewQueueQueries, type ReviewQueueRow } from '../sessions/session-review-queue.queries';

/**
 * Why a session waits for a person (docs/console.md, "Queue"):
 * - `check_review`: a check is short of a pass without failing (a borderline score; shown as `fail`);
 * - `check_error`: a check could not run or could not tell (an engine error, a missing capture);
 * - `review_request`: the end user asked for a human review (deadline: 7 business days, D15).
 */
export const QUEUE_REASONS = ['check_review', 'check_error', 'review_request'] as const;
export type QueueReason = (typeof QUEUE_REASONS)[number];
export const isQueueReason = (v: unknown): v is QueueReason => typeof v === 'string' && (QUEUE_REASONS as readonly string[]).includes(v);

export type QueueFilter = { tier?: Tier | null; reason?: QueueReason | null; livemode?: boolean | null };

export type QueueItem = {
  sessionId: string;
  livemode: boolean;
  tier: Tier;
  /** `manual_review`, or a decided status (`success`, `failed`) when the session is here for its user's review request. */
  status: SessionStatus;
  referenceId: string | null;
  /** When the session entered manual_review (or was decided): the queue's order, and its age. */
  waitingSince: Date;
  reasons: QueueReason[];
  /** The checks that put it here, by name. */
  flaggedChecks: string[];
  /** The end user's review request's deadline (its DSR job's `expected_by`), when one is open. */
  deadline: Date | null;
  /** A decline proposed by one member, waiting for a second (docs/console.md, "Second reviewer"). */
  pendingDecline: boolean;
};

export type QueuePage = { items: QueueItem[]; nextCursor: string | null };

export const QUEUE_PAGE_SIZE = 50;

/** Containment tests on `result.checks` (jsonb): the same words as reasonsOf below, in SQL, for the filter, over the session `s`. */
const REASON_SQL: Record<QueueReason, string> = {
  check_review: `s.status = 'manual_review' AND s.result->'checks' @> '[{"status":"fail"}]'`,
  check_error: `s.status = 'manual_review' AND s.result->'checks' @> '[{"status":"error"}]'`,
  review_request: `EXISTS (SELECT 1 FROM review_cases x WHERE x.session_id = s.id AND x.status = 'open')`,
};

/** Why the checks put a session in manual_review, in the words of QUEUE_REASONS. */
export function reasonsOf(checks: readonly Check[], reviewRequested: boolean): QueueReason[] {
  const out: QueueReason[] = [];
  if (checks.some((c) => c.status === 'fail')) out.push('check_review');
  if (checks.some((c) => c.status === 'error')) out.push('check_error');
  if (reviewRequested) out.push('review_request');
  return out;
}

export function encodeQueueCursor(atText: string, id: string): string {
  return Buffer.from(JSON.stringify([atText, id]), 'utf8').toString('base64url');
}

/** `completed_at::text` as PostgreSQL writes it (`2026-01-02 03:04:05.678+00`): the only `at` a cursor of ours holds. */
const CURSOR_AT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;
/** A session id's shape; anything else (a NUL, a surrogate) would reach the database as a parameter it cannot hold. */
const CURSOR_ID = /^[A-Za-z0-9_]{1,64}$/;

/** Our shape, and a real day and time (PostgreSQL refuses 2026-02-30 and 25:00). */
function isCursorTime(at: string): boolean {
  if (!CURSOR_AT.test(at)) return false;
  const [y, mo, d, h, mi, s] = at.split(/[- :.+]/).map(Number);
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && t.getUTCHours() === h && t.getUTCMinutes() === mi && y >= 1;
}

export function decodeQueueCursor(cursor: string): { at: string; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    // Date.parse accepts `1` and `0` (issue #40 finding 10), which PostgreSQL's timestamptz does not: only our own shape passes.
    if (typeof at === 'string' && typeof id === 'string' && isCursorTime(at) && CURSOR_ID.test(id)) return { at, id };
  } catch {
    /* answered below */
  }
  throw new DomainError('invalid_request', 'after is not a cursor of this queue');
}

/**
 * The console's review queue (issue 27): a tenant's sessions in manual_review, and those whose user
 * asked for a human review (D15) whatever their status, of both modes unless
 * filtered, oldest first, a page at a time (keyset on when each entered manual_review). Sessions of
 * a deleted or restricted user are left out, as from the tenant's session list.
 */
export class ReviewQueue {
  constructor(private readonly db: Pick<EntityManager, 'query'>) {}

  async page(tenantId: string, filter: QueueFilter, after: string | null = null, first = QUEUE_PAGE_SIZE): Promise<QueuePage> {
    if (filter.tier != null && !isTier(filter.tier)) throw new DomainError('invalid_request', 'tier is not a tier');
    if (filter.reason != null && !isQueueReason(filter.reason)) throw new DomainError('invalid_request', `reason must be one of ${QUEUE_REASONS.join(', ')}`);
    const cursor = after ? decodeQueueCursor(after) : null;
    const rows = await SessionReviewQueueQueries.page(
      this.db,
      { tenantId, livemode: filter.livemode ?? null, tier: filter.tier ?? null, after: cursor, limit: first + 1 },
      filter.reason ? [LISTABLE_SESSION_SQL, REASON_SQL[filter.reason]] : [LISTABLE_SESSION_SQL],
    );
    const items = rows.slice(0, first).map(toItem);
    const last = rows.length > first ? rows[first - 1] : null;
    return { items, nextCursor: last ? encodeQueueCursor(last.at_text, last.id) : null };
  }
}

function toItem(r: ReviewQueueRow): QueueItem {
  const checks = (typeof r.checks === 'string' ? (JSON.parse(r.checks) as Check[]) : r.checks) ?? [];
  return {
    sessionId: r.id,
    livemode: r.livemode,
    tier: r.tier as Tier,
    referenceId: r.reference_id,
    waitingSince: new Date(r.completed_at),
    status: r.status as SessionStatus,
    // A decided session is here only for its user's review request: its checks were already weighed.
    reasons: reasonsOf(r.status === 'manual_review' ? checks : [], r.deadline !== null),
    flaggedChecks: r.status === 'manual_review' ? checks.filter((c) => c.status === 'fail' || c.status === 'error').map((c) => c.name) : [],
    deadline: r.deadline ? new Date(r.deadline) : null,
    pendingDecline: r.pending,
  };
}
