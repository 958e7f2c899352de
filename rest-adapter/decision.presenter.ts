import type { SessionDecision } from '../src/sessions/decision-history';

/** A decision-history entry in the D16 shape; automated decisions add the policy version and the checks it read. */
export function presentDecision(d: SessionDecision): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: d.id,
    session_id: d.session_id,
    decision: d.decision,
    reason: d.reason,
    reviewer_id: d.reviewer_id,
    source: d.source,
    from_status: d.from_status,
    to_status: d.to_status,
    decided_at: d.decided_at,
  };
  if (d.requested_by) body.requested_by = d.requested_by;
  if (d.source === 'automated') {
    body.policy_version = d.policy_version;
    body.checks = (d.checks ?? []).map((c) => ({ name: c.name, status: c.status, ...(c.score != null ? { score: c.score } : {}), ...(c.reason != null ? { reason: c.reason } : {}) }));
  }
  return body;
}
