import { NATIONAL_REGISTER, REGISTRY_CHECK_NAMES } from '../registries/business-registry';
import { biometricPolicy } from '../checks/policy/biometric-policy';
import type { Check, CheckStatus, Decision, Signal } from '../../entities/session-result.document';
import type { SessionStatus } from '../sessions/session-status';
import { achievedTier } from '../sessions/test-mode-outcome';
import { badgesForPassedChecks, DIGITAL_ID_CHECK, Tier } from '../sessions/tiers';
import type { CheckOutcome, CheckVerdict } from '../checks/check-providers';

export type PolicyDecision = {
  status: SessionStatus;
  decision: Decision;
  achievedTier: Tier;
  confidence: number;
  badges: string[];
  checks: Check[];
  signals: Signal[];
};

/** How a verdict is shown in `result.checks` (its status set is the public one). */
const CHECK_STATUS: Record<CheckVerdict | 'skipped', CheckStatus> = { pass: 'pass', fail: 'fail', review: 'fail', unknown: 'error', error: 'error', skipped: 'skipped' };

/**
 * The decision policy, the same for every tier (a tier differs only in which checks it runs, see
 * tiers.ts): any failed check declines; otherwise anything short of a pass on every check (a
 * borderline score, an engine that cannot tell, an error or an engine not configured) goes to a
 * person; only a pass on every check of the tier is a success. No check is ever passed by default.
 */
export function decide(tier: Tier, outcomes: CheckOutcome[], business?: { country?: string }): PolicyDecision {
  const ran = outcomes.filter((o) => o.verdict !== 'skipped');
  const failed = ran.some((o) => o.verdict === 'fail');
  const registries = outcomes.filter((o) => REGISTRY_CHECK_NAMES.includes(o.name));
  const others = outcomes.filter((o) => !REGISTRY_CHECK_NAMES.includes(o.name));
  const businessOk = registries.length > 0 && businessSatisfied(registries, business?.country);
  const allPassed = others.every((o) => o.verdict === 'pass') && (registries.length === 0 || businessOk);
  const status: SessionStatus = failed ? 'failed' : allPassed ? 'success' : 'manual_review';
  const decision: Decision = failed ? 'declined' : allPassed ? 'approved' : 'review';
  const passed = new Set(ran.filter((o) => o.verdict === 'pass').map((o) => o.name));
  // The `business` badge (and T4 as the achieved tier) counts the registries as one: see businessSatisfied.
  if (businessOk) for (const r of registries) passed.add(r.name);
  // D24: a verified digital ID is the session's document check (tiers.ts checksForSession).
  if (passed.has(DIGITAL_ID_CHECK)) passed.add('document_ocr');
  const scores = ran.map((o) => o.score ?? (o.verdict === 'pass' ? 1 : 0));
  return {
    status,
    decision,
    achievedTier: achievedTier(tier, passed),
    confidence: scores.length ? Math.min(...scores) : allPassed ? 1 : 0,
    badges: badgesForPassedChecks(passed),
    checks: outcomes.map((o) => ({
      name: o.name,
      status: CHECK_STATUS[o.verdict],
      ...(o.score !== undefined ? { score: o.score } : {}),
      ...(o.reason ? { reason: o.reason } : {}),
      verdict: o.verdict,
      ...(o.details ? { details: o.details } : {}),
    })),
    signals: ran.filter((o) => o.score !== undefined).map((o) => ({ source: o.source ?? o.name, score: o.score! })),
  };
}

/**
 * The version a live decision names in the session's history (docs/decisions.md D16): this rule and the
 * thresholds file it reads through the engines. Test mode decides by the tenant's requested outcome.
 */
export const LIVE_POLICY_VERSION = `decide-1+biometric-${biometricPolicy.version}`;
export const TEST_MODE_POLICY_VERSION = 'test-mode-1';

/**
 * T4's business rule (docs/checks.md, "Decision"): at least one registry check passed, none failed or
 * short of a pass among those that ran (a skipped registry, whose identifier was not given, is neutral),
 * and the national register of the business's country passed when the country was given.
 */
export function businessSatisfied(registries: CheckOutcome[], country: string | undefined): boolean {
  const ran = registries.filter((o) => o.verdict !== 'skipped');
  if (!ran.length || !ran.every((o) => o.verdict === 'pass')) return false;
  const national = country ? NATIONAL_REGISTER[country] : undefined;
  return !national || registries.some((o) => o.name === national && o.verdict === 'pass');
}
