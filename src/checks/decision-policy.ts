import { biometricPolicy } from './policy/biometric-policy';
import type { Check, CheckStatus, Decision, Signal } from '../sessions/session-result';
import type { SessionStatus } from '../sessions/session-status';
import { achievedTier } from '../sessions/test-mode-outcome';
import { badgesForPassedChecks, Tier } from '../sessions/tiers';
import type { CheckVerdict } from './check-providers';

/** One check's outcome as the pipeline saw it: the engine's verdict, or `skipped` when it did not run. */
export type CheckOutcome = { name: string; verdict: CheckVerdict | 'skipped'; score?: number; reason?: string; source?: string };

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
export function decide(tier: Tier, outcomes: CheckOutcome[]): PolicyDecision {
  const ran = outcomes.filter((o) => o.verdict !== 'skipped');
  const failed = ran.some((o) => o.verdict === 'fail');
  const allPassed = ran.length === outcomes.length && ran.every((o) => o.verdict === 'pass');
  const status: SessionStatus = failed ? 'failed' : allPassed ? 'success' : 'manual_review';
  const decision: Decision = failed ? 'declined' : allPassed ? 'approved' : 'review';
  const passed = new Set(ran.filter((o) => o.verdict === 'pass').map((o) => o.name));
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
    })),
    signals: ran.filter((o) => o.score !== undefined).map((o) => ({ source: o.source ?? o.name, score: o.score! })),
  };
}

/**
 * The version a live decision names in the session's history (DECISIONS.md D16): this rule and the
 * thresholds file it reads through the engines. Test mode decides by the tenant's requested outcome.
 */
export const LIVE_POLICY_VERSION = `decide-1+biometric-${biometricPolicy.version}`;
export const TEST_MODE_POLICY_VERSION = 'test-mode-1';
