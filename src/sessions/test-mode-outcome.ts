import { DomainError } from '../errors';
import { Check, Decision, SessionResult } from '../../entities/session-result.document';
import { AVAILABLE_TIERS, badgesForPassedChecks, checksForTier, Tier, tierRank } from './tiers';
import type { SessionStatus } from './session-status';
import { CHIP_GENUINE_STATEMENT } from './chip-wording';

export const TEST_OUTCOMES = ['approved', 'declined', 'review'] as const;
export type TestOutcome = (typeof TEST_OUTCOMES)[number];

/** Fixed scores, so the same request always yields the same result (docs/api-behaviour.md, "Test mode"). */
const PASS_SCORES: Record<string, number> = {
  document_ocr: 0.99,
  face_match: 0.97,
  liveness: 0.98,
  anti_spoof: 0.96,
  sanctions_screening: 1,
  lei_registry: 1,
  sec_filings: 1,
  uk_company_register: 1,
  au_business_register: 1,
  chip_passive_authentication: 1,
};

export const CHIP_GENUINE_REASON = CHIP_GENUINE_STATEMENT;

/** Reads `metadata.test_outcome`; anything but the three names is a 400 (docs/api-behaviour.md, "Test mode"). */
export function testOutcomeOf(metadata: Record<string, unknown>): TestOutcome {
  const value = metadata.test_outcome;
  if (value === undefined) return 'approved';
  if (typeof value === 'string' && (TEST_OUTCOMES as readonly string[]).includes(value)) return value as TestOutcome;
  throw new DomainError('invalid_request', `metadata.test_outcome must be one of ${TEST_OUTCOMES.join(', ')}`);
}

const STATUS_OF: Record<TestOutcome, SessionStatus> = { approved: 'success', declined: 'failed', review: 'manual_review' };
const DECISION_OF: Record<TestOutcome, Decision> = { approved: 'approved', declined: 'declined', review: 'review' };

function check(name: string, outcome: TestOutcome, afterFailure: boolean): Check {
  if (name === 'face_match' && outcome === 'declined') {
    return { name, status: 'fail', score: 0.12, reason: 'Selfie does not match the document portrait (test mode)' };
  }
  if (name === 'face_match' && outcome === 'review') {
    return { name, status: 'fail', score: 0.64, reason: 'Borderline face match: needs human review (test mode)' };
  }
  if (afterFailure && outcome === 'declined') return { name, status: 'skipped', reason: 'Not run after a failed check' };
  if (name === 'chip_passive_authentication') return { name, status: 'pass', score: 1, reason: CHIP_GENUINE_REASON };
  return { name, status: 'pass', score: PASS_SCORES[name] ?? 1 };
}

/** The highest tier whose every check passed, among those the requested tier contains. */
export function achievedTier(requested: Tier, passed: ReadonlySet<string>): Tier {
  const requestedChecks = new Set(checksForTier(requested));
  let best: Tier = 'T0';
  for (const t of AVAILABLE_TIERS) {
    const checks = checksForTier(t);
    if (tierRank(t) <= tierRank(requested) && checks.every((c) => requestedChecks.has(c) && passed.has(c)) && tierRank(t) > tierRank(best)) {
      best = t;
    }
  }
  return best;
}

/** The terminal status and result of a test-mode session: a pure function of tier and outcome. */
export function testModeResult(tier: Tier, outcome: TestOutcome): { status: SessionStatus; result: SessionResult } {
  const checks: Check[] = [];
  let failed = false;
  for (const name of checksForTier(tier)) {
    const c = check(name, outcome, failed);
    failed ||= c.status === 'fail';
    checks.push(c);
  }
  const passed = new Set(checks.filter((c) => c.status === 'pass').map((c) => c.name));
  const scores = checks.filter((c) => c.status !== 'skipped').map((c) => c.score ?? 1);
  const result: SessionResult = {
    decision: DECISION_OF[outcome],
    achieved_tier: achievedTier(tier, passed),
    confidence: scores.length ? Math.min(...scores) : outcome === 'approved' ? 1 : 0,
    checks,
    evidence_urls: [],
    badges: badgesForPassedChecks(passed),
    signals: checks.filter((c) => c.score !== undefined && c.status !== 'skipped').map((c) => ({ source: c.name, score: c.score! })),
  };
  if (tier === 'T3' || tier === 'T4') result.sanctions_hits = []; // an empty list is a real answer in test mode
  if (tier === 'T5') result.chip = testModeChipBlock(outcome);
  return { status: STATUS_OF[outcome], result };
}

/** A fixed chip block in the shape a real Passive Authentication produces, for a specimen document. */
function testModeChipBlock(outcome: TestOutcome): Record<string, unknown> {
  const verdict = { status: 'succeeded' };
  return {
    test_mode: true,
    ds_signature: verdict,
    chain: verdict,
    data_group_hashes: verdict,
    data_groups: [],
    uncovered_data_groups: [],
    document: { issuing_state: 'UTO', document_type: 'P', expiry_date: '2035-01-01', document_number: '*******89' },
    statement: CHIP_GENUINE_STATEMENT,
    outcome,
  };
}
