import type { SanctionsHit as SanctionsHitDocument, SessionResult } from '../entities/session-result.document';
import type { SessionView } from '../src/sessions/session-status-event';
import type { EvidenceSigner } from '../src/vault/evidence-access.service';
import { Result, SanctionsHit, Session } from './session.type';

/** Signs evidence links for the result's artifacts; EvidenceAccessService.signerFor gives one for tenant-key reads only. */
export type { EvidenceSigner };

/**
 * What only some answers carry: the client secret (the create answer only, issue #25 finding 4), the
 * hosted URL (the create answer, and a tenant key's reads of an open session: D21), and evidence
 * links (reads with a tenant key).
 */
export type SessionExtras = { hostedUrl?: string; clientSecret?: string; evidence?: EvidenceSigner };

/** What a caller may see of a session -> GraphQL object; the GraphQL type is public API, the entity is not. */
export function toSession(s: SessionView, { hostedUrl, clientSecret, evidence }: SessionExtras = {}): Session {
  return {
    id: s.id,
    hostedUrl: hostedUrl ?? null,
    status: s.status,
    tier: s.tier,
    referenceId: s.referenceId ?? undefined,
    userSub: s.userSub ?? null,
    result: s.result ? toResult(s.result, evidence) : undefined,
    createdAt: s.createdAt,
    completedAt: s.completedAt,
    expiresAt: s.expiresAt,
    livemode: s.livemode,
    flowId: s.flowId,
    redirectUrl: s.redirectUrl ?? undefined,
    locale: s.locale,
    metadata: s.metadata,
    clientSecret,
  };
}

function toResult(r: SessionResult, evidence: EvidenceSigner | undefined): Result {
  return {
    decision: r.decision,
    achievedTier: r.achieved_tier,
    confidence: r.confidence,
    checks: r.checks,
    evidenceUrls: evidence ? evidence(r.evidence_artifact_ids) : [],
    badges: r.badges,
    signals: r.signals,
    sanctionsHits: r.sanctions_hits?.map(toSanctionsHit),
    chip: r.chip,
  };
}

/** A screening hit in the result document -> its GraphQL type (also used by screenIdentity). */
export function toSanctionsHit(h: SanctionsHitDocument): SanctionsHit {
  return {
    list: h.list,
    entryId: h.entry_id,
    reference: h.reference,
    programme: h.programme,
    subjectType: h.subject_type,
    matchedName: h.matched_name,
    score: h.score,
    reasons: h.reasons,
    listVersion: h.list_version,
  };
}
