import type { SanctionsHit } from '../sanctions/sanctions.model';
import type { Screening } from '../sanctions/screening.service';
import { testIdentityOf, withSanctionsScreening } from './sanctions-check';
import { testModeResult } from './test-mode-outcome';

const lists = [
  { list: 'un' as const, version: 'un-2026-02-27-bb19f9e9dfd5' },
  { list: 'ofac' as const, version: 'ofac-2024-05-06-192f434912b6' },
];
const hit: SanctionsHit = {
  list: 'un',
  entry_id: '6907993',
  reference: 'CDi.001',
  programme: 'DRC',
  subject_type: 'person',
  matched_name: 'ERIC BADEGE',
  score: 0.93,
  reasons: [{ feature: 'name', score: 0.93, detail: 'aligned' }],
  list_version: 'un-2026-02-27-bb19f9e9dfd5',
};
const screening = (hits: SanctionsHit[], used = lists): Screening => ({ hits, lists: used, threshold: 0.7 });
const sanctionsCheckOf = (r: { result: { checks: { name: string }[] } }) => r.result.checks.find((c) => c.name === 'sanctions_screening');

describe('testIdentityOf', () => {
  it('returns null without a test_identity and the validated query with one', () => {
    expect(testIdentityOf({})).toBeNull();
    expect(testIdentityOf({ test_identity: { full_name: '  Eric   Badege ', birth_date: '1971', nationality: 'cd' } })).toEqual({
      fullName: 'Eric Badege',
      birthDate: '1971',
      nationality: 'CD',
    });
  });

  it.each([
    [{ test_identity: 'Eric Badege' }, /must be an object/],
    [{ test_identity: { full_name: 'Eric Badege', dob: '1971' } }, /unknown field\(s\): dob/],
    [{ test_identity: { full_name: '!!' } }, /^metadata\.test_identity\.full_name: fullName holds no letters/],
    [{ test_identity: { full_name: 'Eric Badege', birth_date: '1971-13-01' } }, /^metadata\.test_identity\.birth_date: /],
    [{ test_identity: { full_name: 'Eric Badege', nationality: 'XX' } }, /^metadata\.test_identity\.nationality: /],
  ])('rejects %j as invalid_request', (metadata, message) => {
    expect(() => testIdentityOf(metadata)).toThrow(expect.objectContaining({ code: 'invalid_request', message: expect.stringMatching(message) }));
  });
});

describe('withSanctionsScreening', () => {
  it('passes with no hit, naming every list version screened, and keeps the sanctions_clear badge', () => {
    const r = withSanctionsScreening('T3', testModeResult('T3', 'approved'), screening([]));
    expect(r.status).toBe('success');
    expect(sanctionsCheckOf(r)).toMatchObject({ status: 'pass', reason: expect.stringContaining('un-2026-02-27-bb19f9e9dfd5, ofac-2024-05-06-192f434912b6') });
    expect(r.result).toMatchObject({ decision: 'approved', achieved_tier: 'T3', sanctions_hits: [] });
    expect(r.result.badges).toContain('sanctions_clear');
  });

  it('fails on a hit and sends an approval to manual review, dropping the achieved tier to T2', () => {
    const r = withSanctionsScreening('T3', testModeResult('T3', 'approved'), screening([hit]));
    expect(r.status).toBe('manual_review');
    expect(r.result).toMatchObject({ decision: 'review', achieved_tier: 'T2', sanctions_hits: [hit] });
    expect(sanctionsCheckOf(r)).toMatchObject({ status: 'fail', score: 0.07 });
    expect(r.result.badges).not.toContain('sanctions_clear');
    expect(r.result.confidence).toBe(0.07);
  });

  it('is an error, never a pass, when no list is loaded', () => {
    const r = withSanctionsScreening('T4', testModeResult('T4', 'approved'), screening([], []));
    expect(r.status).toBe('manual_review');
    expect(sanctionsCheckOf(r)).toEqual({ name: 'sanctions_screening', status: 'error', reason: 'sanctions lists not loaded' });
    expect(r.result.badges).not.toContain('sanctions_clear');
  });

  it('keeps a declined session declined and a skipped check skipped', () => {
    const declined = testModeResult('T3', 'declined');
    const r = withSanctionsScreening('T3', declined, screening([hit]));
    expect(r).toBe(declined);
    expect(sanctionsCheckOf(r)).toMatchObject({ status: 'skipped' });
  });

  it('leaves tiers without a sanctions check alone', () => {
    const t2 = testModeResult('T2', 'approved');
    expect(withSanctionsScreening('T2', t2, screening([hit]))).toBe(t2);
  });
});
