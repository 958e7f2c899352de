import { DomainError } from '../errors';
import { validateScreeningQuery } from '../sanctions/screening-query';
import type { ScreeningQuery } from '../sanctions/sanctions.model';
import type { Screening } from '../sanctions/screening.service';
import type { Check, SessionResult } from '../../entities/session-result.document';
import type { SessionStatus } from './session-status';
import { achievedTier } from './test-mode-outcome';
import { badgesForPassedChecks, type Tier } from './tiers';

export const SANCTIONS_CHECK = 'sanctions_screening';

/** The reason of a sanctions check when no list is in force (docs/sanctions.md): the person was not screened. */
export const SANCTIONS_NOT_LOADED = 'sanctions lists not loaded';

/**
 * Reads and validates `metadata.test_identity` ({full_name, birth_date?, nationality?}): the
 * person a test-mode T3/T4 session screens against the loaded lists. Null when absent; a bad
 * one is a 400 with the validator's message, at creation rather than 10 s later.
 */
export function testIdentityOf(metadata: Record<string, unknown>): ScreeningQuery | null {
  const raw = metadata.test_identity;
  if (raw === undefined) return null;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new DomainError('invalid_request', 'metadata.test_identity must be an object {full_name, birth_date?, nationality?}');
  }
  const { full_name, birth_date, nationality, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new DomainError('invalid_request', `metadata.test_identity has unknown field(s): ${unknown.join(', ')}`);
  const v = validateScreeningQuery({ fullName: full_name, birthDate: birth_date, nationality });
  if (!v.ok) {
    const field = { fullName: 'full_name', birthDate: 'birth_date', nationality: 'nationality', threshold: 'threshold' }[v.error.field];
    throw new DomainError('invalid_request', `metadata.test_identity.${field}: ${v.error.message}`);
  }
  return v.query;
}

const fmt = (n: number) => n.toFixed(2);

/** The check a screening produces: a hit needs a human, and no list loaded is an error, never a pass. */
export function sanctionsCheck(s: Screening): Check {
  const against = s.lists.map((l) => l.version).join(', ');
  if (!s.lists.length) return { name: SANCTIONS_CHECK, status: 'error', reason: SANCTIONS_NOT_LOADED };
  if (s.hits.length) {
    const top = s.hits[0];
    return {
      name: SANCTIONS_CHECK,
      status: 'fail',
      score: Math.round((1 - top.score) * 100) / 100,
      reason: `${s.hits.length} possible match(es) at threshold ${fmt(s.threshold)}, best ${top.list} ${top.entry_id} (${fmt(top.score)}); screened against ${against}`,
    };
  }
  return { name: SANCTIONS_CHECK, status: 'pass', score: 1, reason: `No match at threshold ${fmt(s.threshold)}; screened against ${against}` };
}

/**
 * Puts a screening into a result that has a sanctions check (T3, T4). A check already skipped
 * (an earlier check declined the session) stays skipped. A failed or errored check turns an
 * approval into `review` / `manual_review`: a possible sanctions match, or an unscreened person,
 * needs a human decision, as with Persona and Onfido; a decline stays a decline.
 */
export function withSanctionsScreening(
  tier: Tier,
  outcome: { status: SessionStatus; result: SessionResult },
  screening: Screening,
): { status: SessionStatus; result: SessionResult } {
  const at = outcome.result.checks.findIndex((c) => c.name === SANCTIONS_CHECK);
  if (at < 0 || outcome.result.checks[at].status === 'skipped') return outcome;
  const checks = outcome.result.checks.map((c, i) => (i === at ? sanctionsCheck(screening) : c));
  const passed = new Set(checks.filter((c) => c.status === 'pass').map((c) => c.name));
  const scored = checks.filter((c) => c.status !== 'skipped' && c.score !== undefined);
  const result: SessionResult = {
    ...outcome.result,
    checks,
    achieved_tier: achievedTier(tier, passed),
    badges: badgesForPassedChecks(passed),
    signals: scored.map((c) => ({ source: c.name, score: c.score! })),
    confidence: scored.length ? Math.min(...scored.map((c) => c.score!)) : outcome.result.confidence,
    sanctions_hits: screening.hits,
  };
  let status = outcome.status;
  if (checks[at].status !== 'pass' && result.decision === 'approved') {
    result.decision = 'review';
    status = 'manual_review';
  }
  return { status, result };
}
