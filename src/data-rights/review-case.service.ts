import type { DataSource } from 'typeorm';
import { DomainError } from '../errors';
import { randomBase62 } from '../ids';
import { SessionDataRightsQueries } from '../sessions/session-data-rights.queries';
import type { SessionService } from '../sessions/session.service';
import type { JobQueue } from '../jobs/job-queue';
import type { DsrJob, DsrJobService } from './dsr-job.service';
import { queueDsrMail } from './dsr-mail';
import type { ReviewCaseSettlement } from './review-case.settlement';
import { assertNotDeleted, lockUser } from './user-state';
import { systemClock, type Clock } from '../clock';
import type { ReviewCase, ReviewCaseDecision, ReviewCaseStatus } from './review-case';

export type { ReviewCase } from './review-case';

type Row = { id: string; user_id: string; session_id: string; dsr_job_id: string; reason: string; status: ReviewCaseStatus; decision: ReviewCaseDecision | null; note: string | null; created_at: Date; decided_at: Date | null };

const toCase = (r: Row): ReviewCase => ({
  id: r.id,
  userId: r.user_id,
  sessionId: r.session_id,
  dsrJobId: r.dsr_job_id,
  reason: r.reason,
  status: r.status,
  decision: r.decision,
  note: r.note,
  createdAt: new Date(r.created_at),
  decidedAt: r.decided_at ? new Date(r.decided_at) : null,
});

export const REASON_MAX = 2000;
const verificationNotFound = () => new DomainError('not_found', 'Verification not found');

/**
 * Human review of a verification decision at the user's request (docs/data-rights.md, "Review"):
 * `POST /v1/me/verifications/{id}/review` opens a case and a `review` DSR job (7 business days);
 * internal tools list the cases (`reviewCases`) and decide them (`decideReviewCase`). Upholding
 * leaves the session as it is; approving or rejecting re-decides it (SessionService.redecide), which
 * sends the verification event again. The user follows the job and the case.
 */
/** The statuses of a decided verification: the ones a user may ask a person to review. */
export const REVIEWABLE_STATUSES: readonly string[] = ['success', 'failed', 'manual_review'];

export class ReviewCaseService {
  constructor(
    private readonly db: DataSource,
    private readonly dsr: DsrJobService,
    private readonly sessions: Pick<SessionService, 'redecide'>,
    private readonly settlement: Pick<ReviewCaseSettlement, 'settle'>,
    private readonly jobs: Pick<JobQueue, 'send'>,
    private readonly now: Clock = systemClock,
  ) {}

  /**
   * Another user's session, an unbound one, an unknown id and (for a tenant's token, `tenantSlice`)
   * another tenant's session are all 404. A second request while a case is open answers with it.
   */
  async open(userId: string, sessionId: string, reason: unknown, tenantSlice: string | null = null): Promise<{ job: DsrJob; reviewCase: ReviewCase }> {
    if (typeof reason !== 'string' || reason.trim().length < 3 || reason.length > REASON_MAX) {
      throw new DomainError('invalid_request', `reason must be 3 to ${REASON_MAX} characters`);
    }
    return this.db.transaction(async (m) => {
      assertNotDeleted(await lockUser(m, userId));
      const status = await SessionDataRightsQueries.statusOfUsersSession(m, sessionId, userId, tenantSlice);
      if (status === null) throw verificationNotFound();
      if (!REVIEWABLE_STATUSES.includes(status)) throw new DomainError('invalid_state', `Only a decided verification can be reviewed; this one is ${status}`);
      const open: Row[] = await m.query(`SELECT * FROM review_cases WHERE user_id = $1 AND session_id = $2 AND status = 'open'`, [userId, sessionId]);
      if (open[0]) return { job: (await this.dsr.get(open[0].dsr_job_id, m))!, reviewCase: toCase(open[0]) };
      const id = `rvc_${randomBase62(24)}`;
      const job = await this.dsr.create({ userId, kind: 'review', details: { verification_id: sessionId, review_case_id: id }, within: m });
      const rows: Row[] = await m.query(
        `INSERT INTO review_cases (id, user_id, session_id, dsr_job_id, reason, status, created_at) VALUES ($1, $2, $3, $4, $5, 'open', $6) RETURNING *`,
        [id, userId, sessionId, job.id, reason.trim(), this.now()],
      );
      // The decision is the tenant's: its owners and admins are told, and the case waits in its console queue.
      await queueDsrMail(this.jobs, { kind: 'review_requested', caseId: id }, m);
      return { job, reviewCase: toCase(rows[0]) };
    });
  }

  /** The user's cases about one of their verifications, newest first (404 when it is not theirs, or not at `tenantSlice`). */
  async forUser(userId: string, sessionId: string, tenantSlice: string | null = null): Promise<ReviewCase[]> {
    if ((await SessionDataRightsQueries.statusOfUsersSession(this.db, sessionId, userId, tenantSlice)) === null) throw verificationNotFound();
    const rows: Row[] = await this.db.query(`SELECT * FROM review_cases WHERE user_id = $1 AND session_id = $2 ORDER BY created_at DESC`, [userId, sessionId]);
    return rows.map(toCase);
  }

  async list(filter: { status?: ReviewCaseStatus | null; first?: number }): Promise<ReviewCase[]> {
    const first = filter.first ?? 50;
    if (!Number.isInteger(first) || first < 1 || first > 100) throw new DomainError('invalid_request', 'first must be between 1 and 100');
    const rows: Row[] = await this.db.query(`SELECT * FROM review_cases WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at ASC LIMIT $2`, [filter.status ?? null, first]);
    return rows.map(toCase);
  }

  /** The internal tools' decision. A case is decided once; its request completes with the outcome. */
  async decide(id: string, input: { decision: 'uphold' | 'approve' | 'reject'; note: string; reviewerId?: string | null }): Promise<ReviewCase> {
    if (!['uphold', 'approve', 'reject'].includes(input.decision)) throw new DomainError('invalid_request', 'decision must be uphold, approve or reject');
    if (typeof input.note !== 'string' || input.note.trim().length < 3) throw new DomainError('invalid_request', 'note must be at least 3 characters');
    const rows: Row[] = await this.db.query(`SELECT * FROM review_cases WHERE id = $1`, [id]);
    const found = rows[0];
    if (!found) throw new DomainError('not_found', 'Review case not found');
    if (found.status !== 'open') throw new DomainError('invalid_state', 'This review case is already decided');
    // A re-decision settles the case in its own transaction (ReviewCaseSettlement.onOutbox), as a tenant's decision does.
    if (input.decision !== 'uphold') await this.sessions.redecide(found.session_id, { decision: input.decision, reason: input.note.trim(), reviewerId: input.reviewerId });
    else await this.uphold(found.session_id, input.note.trim());
    const after: Row[] = await this.db.query(`SELECT * FROM review_cases WHERE id = $1`, [id]);
    return toCase(after[0]);
  }

  /** The decision stands: the session's open case is settled `upheld` (the operator's tools, or the tenant's console). */
  async uphold(sessionId: string, note: string, tenantId: string | null = null): Promise<number> {
    if (typeof note !== 'string' || note.trim().length < 3) throw new DomainError('invalid_request', 'note must be at least 3 characters');
    return this.db.transaction(async (m) => {
      if (!(await SessionDataRightsQueries.lockOfTenantOrAny(m, sessionId, tenantId))) throw new DomainError('not_found', 'Session not found');
      const settled = await this.settlement.settle(m, sessionId, 'upheld', note.trim(), this.now());
      if (!settled) throw new DomainError('invalid_state', 'No review request of this session is open');
      return settled;
    });
  }
}
