import type { EntityManager } from 'typeorm';
import type { Check } from '../../entities/session-result.document';

/** A session of the console's review queue, as SessionReviewQueueQueries.page reads it. */
export type ReviewQueueRow = {
  id: string;
  livemode: boolean;
  tier: string;
  status: string;
  reference_id: string | null;
  completed_at: Date;
  /** `completed_at::text`, exact to the microsecond: what a keyset cursor holds. */
  at_text: string;
  /** `result.checks`: parsed, or as text where the driver gives jsonb as text. */
  checks: Check[] | string | null;
  /** The earliest `expected_by` of the DSR jobs behind the session's open review requests, if any. */
  deadline: Date | null;
  /** A decline proposed by one member waits for a second. */
  pending: boolean;
};

/** The page wanted: the tenant's queue of either mode unless `livemode` is set, of any tier unless `tier` is, after the keyset `after`. */
export type ReviewQueuePageQuery = {
  tenantId: string;
  livemode: boolean | null;
  tier: string | null;
  after: { at: string; id: string } | null;
  limit: number;
};

// The filters every candidate passes (absent ones are NULL), over the session `s`, then the caller's own.
const FILTERS_SQL = (callerSql: readonly string[]) => `
     AND ($2::boolean IS NULL OR s.livemode = $2)
     AND ($3::text IS NULL OR s.tier = $3)
     AND ($4::timestamptz IS NULL OR (s.completed_at, s.id) > ($4::timestamptz, $5::text))
     ${callerSql.map((sql) => `AND ${sql}`).join('\n     ')}`;

// One statement for every filter. The queue is two ordered walks merged: the tenant's sessions in
// manual_review (the partial index sessions_review_queue) and the sessions with an open review
// request of their user, whatever their status (review_cases_open_session); each walk stops at the
// page's LIMIT, so a page costs the same with 10 or 10,000 cases waiting.
const QUEUE_SQL = (callerSql: readonly string[]) => `
  SELECT s.id, s.livemode, s.tier, s.status, s.reference_id, s.completed_at, s.completed_at::text AS at_text, s.result->'checks' AS checks,
         rv.expected_by AS deadline, (pd.session_id IS NOT NULL) AS pending
    FROM (
      (SELECT s.id, s.completed_at FROM sessions s WHERE s.tenant_id = $1 AND s.status = 'manual_review' ${FILTERS_SQL(callerSql)} ORDER BY s.completed_at, s.id LIMIT $6)
      UNION
      (SELECT s.id, s.completed_at FROM review_cases rc JOIN sessions s ON s.id = rc.session_id
        WHERE rc.status = 'open' AND s.tenant_id = $1 AND s.completed_at IS NOT NULL ${FILTERS_SQL(callerSql)} ORDER BY s.completed_at, s.id LIMIT $6)
    ) q
    JOIN sessions s ON s.id = q.id
    LEFT JOIN LATERAL (
      SELECT j.expected_by FROM review_cases rc JOIN dsr_jobs j ON j.id = rc.dsr_job_id
       WHERE rc.session_id = s.id AND rc.status = 'open' ORDER BY j.expected_by LIMIT 1
    ) rv ON true
    LEFT JOIN pending_declines pd ON pd.session_id = s.id
   ORDER BY s.completed_at, s.id
   LIMIT $6`;

/** The sessions of the console's review queue (src/console/review-queue.ts gives the queue its words and cursors). */
export class SessionReviewQueueQueries {
  /**
   * Up to `limit` sessions of the queue, oldest first (by completed_at, then id): those in manual_review
   * and those with an open review request. `callerSql`: the caller's further conditions over the
   * session `s` (who may be listed, why it waits), each ANDed into both walks; SQL text, never input.
   */
  static async page(q: Pick<EntityManager, 'query'>, page: ReviewQueuePageQuery, callerSql: readonly string[]): Promise<ReviewQueueRow[]> {
    return q.query(QUEUE_SQL(callerSql), [page.tenantId, page.livemode, page.tier, page.after?.at ?? null, page.after?.id ?? null, page.limit]);
  }
}
