import type { EntityManager } from 'typeorm';
import type { OutboxEventEntity } from '../../entities';
import type { JobQueue } from '../jobs/job-queue';
import type { OutboxHandler } from '../sessions/session.service';
import type { DsrJobService } from './dsr-job.service';
import { queueDsrMail } from './dsr-mail';
import type { ReviewCaseDecision } from './review-case';
import { updateReturning } from './user-state';
import { SessionReader } from '../sessions/session-reader';

type SettledRow = { id: string; dsr_job_id: string };

/** A verification event of a session entering success or failed: what may settle its open request. */
const isDecisionEvent = (e: OutboxEventEntity): boolean =>
  !!e.sessionId && (e.type === 'verification.completed' || e.type === 'verification.failed') && (e.payload.status === 'success' || e.payload.status === 'failed');

/**
 * Closes a user's open review request (D15, docs/data-rights.md "Review") when the decision is
 * made, whoever makes it: the tenant (console, `POST .../decisions`, GraphQL `decideSession`) or the
 * operator's tools (`decideReviewCase`). Its DSR job completes with the outcome, shown in the
 * account portal, and the outcome mail to the user is queued, all in the deciding transaction.
 */
export class ReviewCaseSettlement {
  constructor(
    private readonly dsr: Pick<DsrJobService, 'get' | 'start' | 'complete'>,
    private readonly jobs: Pick<JobQueue, 'send'>,
  ) {}

  /** Settles the session's open case(s) with `decision`; returns how many. */
  async settle(m: EntityManager, sessionId: string, decision: ReviewCaseDecision, note: string | null, at: Date): Promise<number> {
    const settled = await updateReturning<SettledRow>(
      m,
      `UPDATE review_cases SET status = 'decided', decision = $2, note = $3, decided_at = $4 WHERE session_id = $1 AND status = 'open' RETURNING id, dsr_job_id`,
      [sessionId, decision, note, at],
    );
    for (const c of settled) {
      const job = await this.dsr.get(c.dsr_job_id, m);
      if (job?.status === 'received') await this.dsr.start(job.id, m);
      if (job && ['received', 'in_progress'].includes(job.status)) await this.dsr.complete(job.id, { decision, review_case_id: c.id }, m);
      await queueDsrMail(this.jobs, { kind: 'review_decided', caseId: c.id }, m);
    }
    return settled.length;
  }

  /**
   * The SessionService outbox handler: a person's decision on a session (its verification event, with
   * the review the decision wrote into the result at that moment) settles the session's open request.
   */
  readonly onOutbox: OutboxHandler = Object.assign(async (m: EntityManager, events: OutboxEventEntity[]) => {
    for (const e of events) {
      if (!isDecisionEvent(e)) continue;
      const status = e.payload.status;
      const review = await SessionReader.reviewOf(m, e.sessionId!);
      if (!review?.reviewedAt || Date.parse(review.reviewedAt) !== new Date(e.createdAt).getTime()) continue; // not a person's decision
      await this.settle(m, e.sessionId!, status === 'success' ? 'approved' : 'declined', review.reason, new Date(e.createdAt));
    }
  }, { wants: isDecisionEvent });
}
