import type { Check, SanctionsHit, SessionResult } from '../entities/session-result.document';
import type { SessionView } from '../src/sessions/session-status-event';

/**
 * What only some answers carry: the client secret (the create answer only, issue #25 finding 4), the
 * hosted URL (the create answer, and a tenant key's reads of an open session: D21), and signed
 * evidence links (reads with a tenant key; every other answer has none).
 */
export type SessionBodyExtras = { hostedUrl?: string; clientSecret?: string; evidenceUrls?: (artifactIds: readonly string[] | undefined) => string[] };

/**
 * The session's definition shape (docs/api-behaviour.md, "Shapes"), from what a caller may see of it:
 * snake_case, additive fields only. Nested objects are rebuilt key by key, because jsonb hands the
 * result document back with its keys reordered.
 */
export function presentSession(s: SessionView, extras: SessionBodyExtras = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: s.id,
    hosted_url: extras.hostedUrl ?? null,
    status: s.status,
    tier: s.tier,
    reference_id: s.referenceId ?? null,
    result: s.result ? presentResult(s.result, extras) : null,
    created_at: s.createdAt.toISOString(),
    completed_at: s.completedAt?.toISOString() ?? null,
    expires_at: s.expiresAt.toISOString(),
    livemode: s.livemode,
    flow_id: s.flowId,
    redirect_url: s.redirectUrl ?? null,
    locale: s.locale,
    metadata: s.metadata,
  };
  if (s.userSub) body.user_sub = s.userSub;
  if (extras.clientSecret) body.client_secret = extras.clientSecret;
  return body;
}

function presentResult(r: SessionResult, { evidenceUrls }: SessionBodyExtras): Record<string, unknown> {
  const body: Record<string, unknown> = {
    decision: r.decision,
    achieved_tier: r.achieved_tier,
    confidence: r.confidence,
    checks: r.checks.map(presentCheck),
    evidence_urls: evidenceUrls ? evidenceUrls(r.evidence_artifact_ids) : [],
    badges: r.badges,
    signals: r.signals.map((g) => ({ source: g.source, score: g.score })),
  };
  if (r.sanctions_hits) body.sanctions_hits = r.sanctions_hits.map(presentSanctionsHit);
  if (r.chip) body.chip = r.chip;
  return body;
}

function presentCheck(c: Check): Record<string, unknown> {
  const check: Record<string, unknown> = { name: c.name, status: c.status };
  if (c.score !== undefined && c.score !== null) check.score = c.score;
  if (c.reason !== undefined && c.reason !== null) check.reason = c.reason;
  if (c.verdict) check.verdict = c.verdict;
  if (c.details) check.details = c.details;
  return check;
}

function presentSanctionsHit(h: SanctionsHit): Record<string, unknown> {
  return {
    list: h.list,
    entry_id: h.entry_id,
    reference: h.reference,
    programme: h.programme,
    subject_type: h.subject_type,
    matched_name: h.matched_name,
    score: h.score,
    reasons: h.reasons.map((x) => ({ feature: x.feature, score: x.score, detail: x.detail })),
    list_version: h.list_version,
  };
}
