import type { Check, Decision, SessionResult } from '../../entities/session-result.document';
import type { SessionStatus } from '../sessions/session-status';
import { achievedTier } from '../sessions/test-mode-outcome';
import { badgesForPassedChecks, Tier } from '../sessions/tiers';
import { CHIP_CHECK_NAME, ChipCheck } from './chip-check.factory';
import { CHIP_GENUINE_STATEMENT } from '../sessions/chip-wording';
import { PassiveAuthenticationResult } from './passive-authentication.types';

/**
 * The `result.chip` block of a T5 session: the three verdicts at the top level (the same shape as
 * the fixed test-mode block), the data-group table, and a summary of DG1. It reports what Passive
 * Authentication proves, data signed by a trusted issuer key, and nothing about the document's
 * status in any issuing state's records.
 */
export function chipBlock(pa: PassiveAuthenticationResult, check: ChipCheck, submittedAt: Date): Record<string, unknown> {
  return {
    ds_signature: pa.verdicts.ds_signature,
    chain: pa.verdicts.chain,
    data_group_hashes: pa.verdicts.data_group_hashes,
    data_groups: pa.data_groups,
    uncovered_data_groups: pa.uncovered_data_groups,
    document: pa.mrz && {
      issuing_state: pa.mrz.issuing_state,
      document_type: pa.mrz.document_type,
      expiry_date: pa.mrz.date_of_expiry,
      document_number: pa.mrz.document_number_masked,
      mrz_format: pa.mrz.format,
      check_digits_valid: pa.mrz.check_digits_valid,
      // DG1 matched its signed hash; it is authenticated only if the chain and signature hold too.
      authenticated: check.status === 'pass',
    },
    signature_algorithm: pa.signature_algorithm,
    lds: pa.lds,
    signing_time: pa.signing_time,
    validated_at: pa.validated_at,
    document_signer: pa.document_signer,
    csca: pa.csca,
    submitted_at: submittedAt.toISOString(),
    // What Passive Authentication proved, in the specification's permitted wording; null when it did
    // not prove it. The comparisons with the page's captures are reported apart (`cross_checks`).
    statement: passiveAuthenticationSucceeded(pa) ? CHIP_GENUINE_STATEMENT : null,
  };
}

function passiveAuthenticationSucceeded(pa: PassiveAuthenticationResult): boolean {
  const v = pa.verdicts;
  return v.ds_signature.status === 'succeeded' && v.chain.status === 'succeeded' && v.data_group_hashes.status === 'succeeded';
}

/** The check as stored in `result.checks`: a pass scores 1, a failure 0, an error carries no score. */
export function sessionCheck(check: ChipCheck): Check {
  const score = check.status === 'pass' ? 1 : check.status === 'fail' ? 0 : undefined;
  return { name: CHIP_CHECK_NAME, status: check.status, reason: check.reason, ...(score === undefined ? {} : { score }) };
}

/**
 * The result a session carries once chip data arrived and nothing else has been decided: only
 * the chip check ran, so no tier's checks are complete (achieved tier T0, no badges) and the
 * decision is the provisional `review` until the check run decides the session with the page's
 * captures (docs/chip.md, "The route and what follows").
 */
export function chipOnlyResult(block: Record<string, unknown>, check: ChipCheck): SessionResult {
  const c = sessionCheck(check);
  return {
    decision: 'review',
    achieved_tier: 'T0',
    confidence: c.score ?? 0,
    checks: [c],
    evidence_urls: [],
    badges: [],
    signals: c.score === undefined ? [] : [{ source: c.name, score: c.score }],
    chip: block,
  };
}

/**
 * Test mode: when a real chip submission was stored (before the clock's `processing` step), its block
 * and check replace the fixed ones of the deterministic result, so an app developer sees what their
 * chip read proves. The chip's verdict is folded in as the live decision policy would fold it
 * (src/verification/decision-policy.ts): a chip check that fails (Passive Authentication, DG1's
 * signed hash) declines the session whatever `test_outcome` asked; one that could not be checked
 * (`error`) turns an `approved` outcome into `review`, so a person decides; a pass keeps the outcome.
 */
export function withSubmittedChip(
  tier: Tier,
  resolved: { status: SessionStatus; result: SessionResult },
  stored: SessionResult | null,
): { status: SessionStatus; result: SessionResult } {
  const submitted = stored?.chip && stored.checks.find((c) => c.name === CHIP_CHECK_NAME);
  if (!stored?.chip || !submitted) return resolved;
  const checks = resolved.result.checks.map((c) => (c.name === CHIP_CHECK_NAME ? submitted : c));
  const passed = new Set(checks.filter((c) => c.status === 'pass').map((c) => c.name));
  const { status, decision } = foldChipVerdict(submitted.status, resolved.status, resolved.result.decision);
  const scores = checks.filter((c) => c.status !== 'skipped' && c.score !== undefined).map((c) => c.score!);
  return {
    status,
    result: {
      ...resolved.result,
      decision,
      achieved_tier: achievedTier(tier, passed),
      confidence: scores.length ? Math.min(...scores) : resolved.result.confidence,
      checks,
      badges: badgesForPassedChecks(passed),
      signals: checks.filter((c) => c.score !== undefined && c.status !== 'skipped').map((c) => ({ source: c.name, score: c.score! })),
      chip: stored.chip,
    },
  };
}

/** The test outcome after the chip's verdict: a failure declines, an unchecked chip can at best go to a person, a pass changes nothing. */
function foldChipVerdict(chip: Check['status'], status: SessionStatus, decision: Decision): { status: SessionStatus; decision: Decision } {
  if (chip === 'fail') return { status: 'failed', decision: 'declined' };
  if (chip !== 'pass' && decision === 'approved') return { status: 'manual_review', decision: 'review' };
  return { status, decision };
}
