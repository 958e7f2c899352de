import type { TestOutcome } from '../sessions/test-mode-outcome';
import type { CheckProviders, ModelRef, ProviderResult } from '../checks/check-providers';

export const TEST_MODEL: ModelRef = { provider: 'test', model: 'deterministic', version: '1' };

/** The fixed scores of test mode (the same ones a test session resolved by its clock carries). */
const pass = (score: number, reason: string): ProviderResult => ({ verdict: 'pass', score, reason, model: TEST_MODEL });

/**
 * Test-mode engines: they look at nothing and answer what `metadata.test_outcome` asks for, with
 * the fixed scores of test mode, so a test session captured through the page resolves exactly as
 * one resolved by its clock. `declined` fails the face match; `review` makes it borderline.
 */
export function testModeCheckProviders(outcome: TestOutcome): CheckProviders {
  return {
    documentReader: { read: async () => pass(0.99, 'Document read (test mode)') },
    faceMatcher: {
      match: async () => {
        if (outcome === 'declined') return { verdict: 'fail', score: 0.12, reason: 'Selfie does not match the document portrait (test mode)', model: TEST_MODEL };
        if (outcome === 'review') return { verdict: 'review', score: 0.64, reason: 'Borderline face match: needs human review (test mode)', model: TEST_MODEL };
        return pass(0.97, 'Selfie matches the document portrait (test mode)');
      },
    },
    livenessVerifier: { verify: async () => pass(0.98, 'Every challenge step answered (test mode)') },
    presentationAttackDetector: { detect: async () => pass(0.96, 'No presentation attack detected (test mode)') },
  };
}
