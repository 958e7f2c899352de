/** The GraphQL selection of SessionFields, as `execute` returns it. */
export type SessionData = {
  id: string;
  hostedUrl: string | null;
  status: string;
  tier: string;
  referenceId: string | null;
  userSub?: string | null;
  createdAt: Date | string;
  completedAt: Date | string | null;
  expiresAt: Date | string;
  livemode: boolean;
  flowId: string;
  redirectUrl: string | null;
  locale: string;
  metadata: Record<string, unknown>;
  clientSecret?: string | null;
  result: null | {
    decision: string;
    achievedTier: string;
    confidence: number;
    evidenceUrls: string[];
    badges: string[];
    chip: Record<string, unknown> | null;
    checks: { name: string; status: string; score: number | null; reason: string | null; verdict: string | null; details: Record<string, unknown> | null }[];
    signals: { source: string; score: number }[];
    sanctionsHits:
      | null
      | {
          list: string;
          entryId: string;
          reference: string;
          programme: string;
          subjectType: string;
          matchedName: string;
          score: number;
          listVersion: string;
          reasons: { feature: string; score: number; detail: string }[];
        }[];
  };
};

const iso = (d: Date | string | null): string | null => (d === null ? null : typeof d === 'string' ? d : d.toISOString());
const lower = (v: string): string => v.toLowerCase();

/** GraphQL Session -> the definition shape (docs/api-behaviour.md, "Shapes"): snake_case, lower-case enum values, additive fields only. */
export function presentSession(s: SessionData): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: s.id,
    hosted_url: s.hostedUrl,
    status: lower(s.status),
    tier: s.tier,
    reference_id: s.referenceId,
    result: s.result && presentResult(s.result),
    created_at: iso(s.createdAt),
    completed_at: iso(s.completedAt),
    expires_at: iso(s.expiresAt),
    livemode: s.livemode,
    flow_id: s.flowId,
    redirect_url: s.redirectUrl,
    locale: s.locale,
    metadata: s.metadata,
  };
  if (s.userSub) body.user_sub = s.userSub;
  if (s.clientSecret) body.client_secret = s.clientSecret;
  return body;
}

function presentResult(r: NonNullable<SessionData['result']>): Record<string, unknown> {
  const body: Record<string, unknown> = {
    decision: lower(r.decision),
    achieved_tier: r.achievedTier,
    confidence: r.confidence,
    checks: r.checks.map((c) => {
      const check: Record<string, unknown> = { name: c.name, status: lower(c.status) };
      if (c.score !== null) check.score = c.score;
      if (c.reason !== null) check.reason = c.reason;
      if (c.verdict) check.verdict = lower(c.verdict);
      if (c.details) check.details = c.details;
      return check;
    }),
    evidence_urls: r.evidenceUrls,
    badges: r.badges,
    signals: r.signals,
  };
  if (r.sanctionsHits) {
    body.sanctions_hits = r.sanctionsHits.map((h) => ({
      list: h.list,
      entry_id: h.entryId,
      reference: h.reference,
      programme: h.programme,
      subject_type: h.subjectType,
      matched_name: h.matchedName,
      score: h.score,
      reasons: h.reasons,
      list_version: h.listVersion,
    }));
  }
  if (r.chip) body.chip = r.chip;
  return body;
}
