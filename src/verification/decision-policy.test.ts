import { testModeResult } from '../sessions/test-mode-outcome';
import { decide } from './decision-policy';

const pass = (name: string, score = 0.9) => ({ name, verdict: 'pass' as const, score });

describe('decide', () => {
  it('approves only when every check of the tier passed', () => {
    const d = decide('T2', [pass('document_ocr'), pass('face_match', 0.8), pass('liveness'), pass('anti_spoof')]);
    expect(d).toMatchObject({ status: 'success', decision: 'approved', achievedTier: 'T2', confidence: 0.8, badges: ['photo', 'liveness'] });
  });

  it('sends an error, an unknown or a borderline check to a person, never to a pass', () => {
    for (const verdict of ['error', 'unknown', 'review'] as const) {
      const d = decide('T2', [pass('document_ocr'), pass('face_match'), { name: 'liveness', verdict, reason: 'x' }, pass('anti_spoof')]);
      expect(d).toMatchObject({ status: 'manual_review', decision: 'review', achievedTier: 'T1', badges: ['photo'] });
    }
  });

  it('declines on any failed check, whatever else errored', () => {
    const d = decide('T1', [{ name: 'document_ocr', verdict: 'error', reason: 'x' }, { name: 'face_match', verdict: 'fail', score: 0.1 }]);
    expect(d).toMatchObject({ status: 'failed', decision: 'declined', achievedTier: 'T0', badges: [] });
  });

  it('with every engine unconfigured, a live session goes to manual_review with no badge', () => {
    const d = decide('T2', ['document_ocr', 'face_match', 'liveness', 'anti_spoof'].map((name) => ({ name, verdict: 'error' as const, reason: 'No engine' })));
    expect(d).toMatchObject({ status: 'manual_review', achievedTier: 'T0', badges: [], confidence: 0 });
    expect(d.checks.every((c) => c.status === 'error')).toBe(true);
  });

  it('reproduces the test-mode outcome from the deterministic verdicts', () => {
    const review = decide('T2', [pass('document_ocr', 0.99), { name: 'face_match', verdict: 'review', score: 0.64 }, pass('liveness', 0.98), pass('anti_spoof', 0.96)]);
    const expected = testModeResult('T2', 'review');
    expect(review.status).toBe(expected.status);
    expect(review.decision).toBe(expected.result.decision);
    expect(review.confidence).toBe(expected.result.confidence);
    expect(review.checks.map((c) => [c.name, c.status, c.score])).toEqual(expected.result.checks.map((c) => [c.name, c.status, c.score]));
  });
});
