import type { SessionResult } from '../../entities/session-result.document';
import type { CheckOutcome } from '../checks/check-providers';
import type { BusinessDetails } from '../hosted-flow/business-identifiers';
import { BusinessChecksService, type BusinessCheckRun } from '../registries/business-checks.service';
import type { BusinessSubmission } from '../registries/registry-comparison';
import { REGISTRY_CHECK_NAMES } from '../registries/business-registry';
import { testModeRegistries } from '../registries/test-mode-registries';
import type { SessionStatus } from '../sessions/session-status';
import type { Tier } from '../sessions/tiers';
import { decide } from './decision-policy';

type Outcome = { status: SessionStatus; result: SessionResult };

/** How far from a success a status is: the worse of two wins. */
const SEVERITY: Record<string, number> = { success: 0, manual_review: 1, failed: 2 };

/**
 * The registry checks of a T4 test session whose page gave its business before the clock decided (D22): the
 * test identifiers decide them, as in a run through the page (docs/checks.md, "Test mode"; no registry is
 * called). The fixed checks stay; the registry ones are replaced by the run's, and the session ends at the
 * worse of the test outcome and what the decision policy makes of the registries (an inactive company
 * declines; an approved test outcome with every registry satisfied keeps its success and gains `business`).
 */
export async function testModeRegistryRun(details: BusinessDetails | null): Promise<CheckOutcome[] | null> {
  if (!details?.legal_name) return null;
  return (await testModeBusinessRun({ ...details, legal_name: details.legal_name })).outcomes;
}

/** The registry checks of a test session: its identifiers decide, no registry is called (the page's run and the clock's alike). */
export function testModeBusinessRun(submitted: BusinessSubmission): Promise<BusinessCheckRun> {
  return new BusinessChecksService(testModeRegistries(submitted), null, null).run(submitted);
}

export function withTestModeRegistries(tier: Tier, outcome: Outcome, registryOutcomes: CheckOutcome[], country?: string): Outcome {
  const byName = new Map(registryOutcomes.map((o) => [o.name, o]));
  if (!outcome.result.checks.some((c) => byName.has(c.name))) return outcome;
  // The registries are judged alone: every other check counts as passed here, so the policy says what the
  // registries make of the session, and the test outcome keeps its own say over the rest.
  const judged: CheckOutcome[] = outcome.result.checks.map((c) => byName.get(c.name) ?? { name: c.name, verdict: c.status === 'skipped' ? 'skipped' : 'pass' });
  const policy = decide(tier, judged, { country });
  const registryChecks = new Map(policy.checks.filter((c) => REGISTRY_CHECK_NAMES.includes(c.name)).map((c) => [c.name, c]));
  const checks = outcome.result.checks.map((c) => registryChecks.get(c.name) ?? c);
  const worse = SEVERITY[policy.status] > SEVERITY[outcome.status];
  const status = worse ? policy.status : outcome.status;
  const businessBadge = policy.badges.includes('business');
  return {
    status,
    result: {
      ...outcome.result,
      checks,
      decision: worse ? policy.decision : outcome.result.decision,
      achieved_tier: status === 'success' ? policy.achievedTier : outcome.result.achieved_tier,
      badges: status === 'success' ? policy.badges : outcome.result.badges.filter((b) => b !== 'business' || businessBadge),
    },
  };
}
