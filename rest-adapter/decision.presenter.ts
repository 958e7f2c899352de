/** The GraphQL selection of DecisionFields, as `execute` returns it. */
export type DecisionData = {
  id: string;
  sessionId: string;
  decision: string;
  source: string;
  reason: string | null;
  reviewerId: string | null;
  requestedBy: string | null;
  fromStatus: string;
  toStatus: string;
  policyVersion: string | null;
  checks: { name: string; status: string; score: number | null; reason: string | null }[] | null;
  decidedAt: Date | string;
};

/** GraphQL SessionDecision -> the D16 shape: snake_case, lower-case enum values; automated decisions add the policy version and the checks it read. */
export function presentDecision(d: DecisionData): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: d.id,
    session_id: d.sessionId,
    decision: d.decision.toLowerCase(),
    reason: d.reason,
    reviewer_id: d.reviewerId,
    source: d.source.toLowerCase(),
    from_status: d.fromStatus.toLowerCase(),
    to_status: d.toStatus.toLowerCase(),
    decided_at: typeof d.decidedAt === 'string' ? d.decidedAt : d.decidedAt.toISOString(),
  };
  if (d.requestedBy) body.requested_by = d.requestedBy;
  if (d.source.toLowerCase() === 'automated') {
    body.policy_version = d.policyVersion;
    body.checks = (d.checks ?? []).map((c) => ({ name: c.name, status: c.status.toLowerCase(), ...(c.score !== null ? { score: c.score } : {}), ...(c.reason !== null ? { reason: c.reason } : {}) }));
  }
  return body;
}
