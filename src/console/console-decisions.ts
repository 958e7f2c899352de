import type { DataSource } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import { DomainError, notFound } from '../errors';
import { sha256Hex } from '../ids';
import { checkedHumanDecision, type SessionDecision } from '../sessions/decision-history';
import type { MemberDecider, SessionService } from '../sessions/session.service';

/** What a member's decision did: decided the session, or (a decline under the second-reviewer rule) waits for a second member. */
export type ConsoleDecisionOutcome = { kind: 'decided'; decision: SessionDecision } | { kind: 'decline_pending' };

export type PendingDecline = { memberId: string; reason: string; proposedAt: Date };

/**
 * A member's decision in the console (docs/console.md, "Deciding"): SessionService.decide, the use
 * case of the REST and GraphQL decisions, with the member as the reviewer. The second-reviewer rule
 * is the domain's (src/console/second-reviewer-rule.ts, asked by SessionService.decide on every path
 * that ends in a decline): this only says whether the decision was made or waits.
 */
export class ConsoleDecisions {
  constructor(
    private readonly db: DataSource,
    private readonly sessions: Pick<SessionService, 'decide' | 'findOfTenant'>,
    private readonly audit: Pick<AuditLogService, 'append'>,
    /** Settles the session's open review request as `upheld` (ReviewCaseService.uphold, scoped to the tenant). */
    private readonly upholdReview: (sessionId: string, note: string, tenantId: string) => Promise<number>,
  ) {}

  /**
   * The user asked for a human review (D15) and the member keeps the decision: the request is
   * settled `upheld` (the user is told), the session is left as it is, and the member is audited.
   */
  async keepDecision(member: { memberId: string; tenantId: string }, sessionId: string, reason: unknown): Promise<void> {
    if (typeof reason !== 'string' || reason.trim().length < 3 || reason.length > 2000) throw new DomainError('invalid_request', 'reason must be 3 to 2000 characters');
    const s = await this.sessions.findOfTenant({ kind: 'console_member', memberId: member.memberId, tenantId: member.tenantId }, sessionId);
    if (!s) throw notFound();
    await this.upholdReview(sessionId, reason.trim(), member.tenantId);
    await this.audit.append({ tenantId: s.tenantId, livemode: s.livemode, action: 'session.review_upheld', subjectId: sessionId, detail: { member_id: member.memberId, reason_sha256: sha256Hex(reason.trim()) } });
  }

  async pendingDecline(tenantId: string, sessionId: string): Promise<PendingDecline | null> {
    const rows: { member_id: string; reason: string; proposed_at: Date }[] = await this.db.query(`SELECT member_id, reason, proposed_at FROM pending_declines WHERE session_id = $1 AND tenant_id = $2`, [sessionId, tenantId]);
    return rows[0] ? { memberId: rows[0].member_id, reason: rows[0].reason, proposedAt: new Date(rows[0].proposed_at) } : null;
  }

  async decide(member: { memberId: string; tenantId: string }, sessionId: string, input: { decision: unknown; reason: unknown }): Promise<ConsoleDecisionOutcome> {
    const { decision: chosen, reason } = checkedHumanDecision(input);
    const decider: MemberDecider = { kind: 'console_member', memberId: member.memberId, tenantId: member.tenantId };
    const { decision } = await this.sessions.decide(decider, sessionId, { decision: chosen, reason });
    return decision ? { kind: 'decided', decision } : { kind: 'decline_pending' };
  }
}
