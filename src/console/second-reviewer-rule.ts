import type { EntityManager } from 'typeorm';
import type { SessionEntity } from '../../entities';
import type { AuditLogService } from '../audit/audit-log.service';
import { updatedRows } from '../db/updated-rows';
import { DomainError } from '../errors';
import { sha256Hex } from '../ids';
import type { DeclineRule, Decider } from '../sessions/session.service';
import { systemClock, type Clock } from '../clock';

/**
 * The tenant's second-reviewer rule (docs/console.md, "Second reviewer"; issue 40 finding 4): with
 * "a second reviewer confirms every decline" on, every decision that ends in a decline (a decline,
 * a reverse of an approval, the manual-review reject), whatever its path (console, REST, GraphQL),
 * needs two different members. SessionService.decide asks it under the session's row lock, so a
 * proposal and its confirmation cannot race. A tenant key is not a person: it can neither propose
 * nor confirm a decline while the rule is on (409, nothing stored).
 */
export class SecondReviewerRule implements DeclineRule {
  constructor(
    private readonly audit: Pick<AuditLogService, 'append'>,
    private readonly now: Clock = systemClock,
  ) {}

  async decline(m: EntityManager, s: SessionEntity, decider: Decider, reason: string, kind: 'decline' | 'reverse'): Promise<'proceed' | 'held'> {
    const [setting]: { on: boolean }[] = await m.query(`SELECT second_reviewer_for_declines AS on FROM tenant_review_settings WHERE tenant_id = $1`, [s.tenantId]);
    if (!setting?.on) return 'proceed';
    if (decider.kind !== 'console_member') {
      throw new DomainError('invalid_state', 'This tenant has a second reviewer confirm every decline: a decline is proposed and confirmed by two members in the console');
    }
    const [pending]: { member_id: string }[] = await m.query(`SELECT member_id FROM pending_declines WHERE session_id = $1 FOR UPDATE`, [s.id]);
    if (!pending) {
      await m.query(`INSERT INTO pending_declines (session_id, tenant_id, member_id, reason, proposed_at) VALUES ($1, $2, $3, $4, $5)`, [s.id, s.tenantId, decider.memberId, reason, this.now()]);
      await this.audit.append({ tenantId: s.tenantId, livemode: s.livemode, action: 'session.decline_proposed', subjectId: s.id, detail: { member_id: decider.memberId, decision: kind, reason_sha256: sha256Hex(reason) } }, m);
      return 'held';
    }
    if (pending.member_id === decider.memberId) throw new DomainError('invalid_state', 'This decline waits for a second member: a different member must confirm it');
    return 'proceed';
  }

  async settled(m: EntityManager, s: SessionEntity, decider: Decider | null, declined: boolean): Promise<void> {
    const dropped = updatedRows<{ member_id: string }>(await m.query(`DELETE FROM pending_declines WHERE session_id = $1 RETURNING member_id`, [s.id]));
    if (!dropped.length || declined) return; // a confirmation spends the pending decline; only a decision the other way drops it
    const by = decider === null ? { by: 'end_user_review' } : decider.kind === 'console_member' ? { member_id: decider.memberId } : { key_id: decider.keyId };
    await this.audit.append({ tenantId: s.tenantId, livemode: s.livemode, action: 'session.decline_dropped', subjectId: s.id, detail: { ...by, proposed_by: dropped[0].member_id } }, m);
  }
}
