import type { CheckProviders, ModelRef, ProviderResult } from './check-providers';

const NONE: ModelRef = { provider: 'unconfigured', model: 'none', version: '0' };

const error = (what: string): ProviderResult => ({ verdict: 'error', reason: `No ${what} engine is configured on this service`, model: NONE });

/**
 * The live-mode default until engines are configured: every check is `error`, so a live session
 * goes to `manual_review` and never passes on checks that did not run.
 */
export function unconfiguredCheckProviders(): CheckProviders {
  return {
    documentReader: { read: async () => error('document reader') },
    faceMatcher: { match: async () => error('face matcher') },
    livenessVerifier: { verify: async () => error('liveness') },
    presentationAttackDetector: { detect: async () => error('anti-spoof') },
  };
}
