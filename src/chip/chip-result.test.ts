import { testModeResult } from '../sessions/test-mode-outcome';
import { CHIP_GENUINE_REASON, chipCheckFromVerdicts } from './chip-check.factory';
import { chipOnlyResult, sessionCheck, withSubmittedChip } from './chip-result';
import { PassiveAuthenticationVerdicts } from './passive-authentication.types';

const ok = { status: 'succeeded' } as const;
const genuine: PassiveAuthenticationVerdicts = { ds_signature: ok, chain: ok, data_group_hashes: ok };
const tampered: PassiveAuthenticationVerdicts = { ...genuine, data_group_hashes: { status: 'failed', reason: 'hash_mismatch' } };
const unsupported: PassiveAuthenticationVerdicts = { ...genuine, ds_signature: { status: 'failed', reason: 'unsupported_algorithm' } };
const block = (verdicts: PassiveAuthenticationVerdicts) => ({ ...verdicts, data_groups: [], uncovered_data_groups: [] });

describe('chipOnlyResult', () => {
  it('records only the chip check: no tier is complete, so T0, no badges, decision review', () => {
    const r = chipOnlyResult(block(genuine), chipCheckFromVerdicts(genuine));
    expect(r).toMatchObject({ decision: 'review', achieved_tier: 'T0', badges: [], confidence: 1 });
    expect(r.checks).toEqual([{ name: 'chip_passive_authentication', status: 'pass', score: 1, reason: CHIP_GENUINE_REASON }]);
    expect(r.signals).toEqual([{ source: 'chip_passive_authentication', score: 1 }]);
  });

  it('scores a failed check 0 and leaves an unverifiable one unscored', () => {
    expect(sessionCheck(chipCheckFromVerdicts(tampered))).toMatchObject({ status: 'fail', score: 0 });
    const error = sessionCheck(chipCheckFromVerdicts(unsupported));
    expect(error.status).toBe('error');
    expect(error.score).toBeUndefined();
    expect(chipOnlyResult(block(unsupported), chipCheckFromVerdicts(unsupported))).toMatchObject({ confidence: 0, signals: [] });
  });
});

describe('withSubmittedChip (test mode)', () => {
  it('keeps the deterministic result when no chip was submitted', () => {
    const resolved = testModeResult('T5', 'approved');
    expect(withSubmittedChip('T5', resolved, null)).toBe(resolved);
  });

  it('replaces the fixed chip block and check with the submitted ones and keeps an approval that passed', () => {
    const stored = chipOnlyResult(block(genuine), chipCheckFromVerdicts(genuine));
    const { status, result } = withSubmittedChip('T5', testModeResult('T5', 'approved'), stored);
    expect(status).toBe('success');
    expect(result).toMatchObject({ decision: 'approved', achieved_tier: 'T5', badges: ['photo', 'liveness', 'chip'] });
    expect(result.chip).toBe(stored.chip);
    expect(result.chip?.test_mode).toBeUndefined();
  });

  it('turns an approval into a decline when the submitted chip check fails, achieving T2 only', () => {
    const stored = chipOnlyResult(block(tampered), chipCheckFromVerdicts(tampered));
    const { status, result } = withSubmittedChip('T5', testModeResult('T5', 'approved'), stored);
    expect(status).toBe('failed');
    expect(result).toMatchObject({ decision: 'declined', achieved_tier: 'T2', badges: ['photo', 'liveness'], confidence: 0 });
    expect(result.checks.find((c) => c.name === 'chip_passive_authentication')).toMatchObject({ status: 'fail', score: 0 });
  });

  it('declines whatever the test outcome asked when the submitted chip check fails, with its reason', () => {
    const stored = chipOnlyResult(block(tampered), chipCheckFromVerdicts(tampered));
    for (const outcome of ['approved', 'review', 'declined'] as const) {
      const { status, result } = withSubmittedChip('T5', testModeResult('T5', outcome), stored);
      expect({ status, decision: result.decision }).toEqual({ status: 'failed', decision: 'declined' });
      expect(result.checks.find((c) => c.name === 'chip_passive_authentication')?.reason).toContain('data group hashes failed');
    }
  });

  it('sends an approval to a person when the chip could not be checked, and keeps review and declined', () => {
    const stored = chipOnlyResult(block(unsupported), chipCheckFromVerdicts(unsupported));
    expect(withSubmittedChip('T5', testModeResult('T5', 'approved'), stored)).toMatchObject({ status: 'manual_review', result: { decision: 'review', badges: ['photo', 'liveness'] } });
    expect(withSubmittedChip('T5', testModeResult('T5', 'review'), stored)).toMatchObject({ status: 'manual_review', result: { decision: 'review' } });
    expect(withSubmittedChip('T5', testModeResult('T5', 'declined'), stored)).toMatchObject({ status: 'failed', result: { decision: 'declined' } });
  });
});
