import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import type { DecisionHistory, SessionDecision as DecisionRecord } from '../src/sessions/decision-history';
import type { SessionService } from '../src/sessions/session.service';
import type { EvidenceAccessService } from '../src/vault/evidence-access.service';
import { DecideSessionInput, DecideSessionPayload, SessionDecision } from './session-decision.type';
import { toSession } from './session.mapper';
import { Session } from './session.type';

/** Decisions (docs/decisions.md D16): thin transport over SessionService.decide and the decision history. */
@Resolver(() => Session)
export class SessionDecisionResolver {
  constructor(
    private readonly history: DecisionHistory,
    private readonly sessions: SessionService,
    private readonly evidence?: EvidenceAccessService,
  ) {}

  @FieldResolver(() => [SessionDecision], { nullable: true, description: "The session's decision history, oldest first. Tenant keys with sessions:read only; null for any other credential." })
  async decisions(@Root() session: Session, @Ctx() ctx: RequestContext): Promise<SessionDecision[] | null> {
    if (ctx.actor?.kind !== 'tenant_key' || !ctx.actor.scopes.includes('sessions:read')) return null;
    return (await this.history.of(session.id)).map(toSessionDecision);
  }

  @Mutation(() => DecideSessionPayload, { description: 'A human decision (scope sessions:review): APPROVE or DECLINE a session in MANUAL_REVIEW, or REVERSE a decided one within 90 days. While the tenant has a second reviewer confirm every decline (set in the console), a decision that ends in a decline is refused (invalid_state).' })
  async decideSession(@Arg('id', () => ID) id: string, @Arg('input', () => DecideSessionInput) input: DecideSessionInput, @Ctx() ctx: RequestContext): Promise<DecideSessionPayload> {
    const actor = requireTenantKey(ctx.actor, 'sessions:review');
    const { session, decision } = await this.sessions.decide(actor, id, input);
    // A tenant key's decline is never held (the second-reviewer rule refuses it instead): a decision was made.
    if (!decision) throw new Error('A tenant key decision was held for a second reviewer');
    return { decision: toSessionDecision(decision), session: toSession(session, { evidence: this.evidence?.signerFor(actor) }) };
  }
}

export function toSessionDecision(d: DecisionRecord): SessionDecision {
  return {
    id: d.id,
    sessionId: d.session_id,
    decision: d.decision,
    source: d.source,
    reason: d.reason,
    reviewerId: d.reviewer_id,
    requestedBy: d.requested_by,
    fromStatus: d.from_status,
    toStatus: d.to_status,
    policyVersion: d.policy_version,
    checks: d.checks,
    decidedAt: new Date(d.decided_at),
  };
}
