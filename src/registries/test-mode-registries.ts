import { systemClock, type Clock } from '../clock';
import { REGISTRY_CHECKS, type BusinessRegistry, type RegistryAnswer, type RegistryName } from './business-registry';
import type { BusinessSubmission } from './registry-comparison';

/**
 * Test-mode identifiers (docs/checks.md, "Test mode"), like Stripe's test card numbers: these answer
 * an inactive company, no record and a registry error; every other valid identifier answers an active
 * company with the legal name and country the business gave. Nothing leaves the service in test mode.
 */
export const TEST_IDENTIFIERS: Record<RegistryName, { inactive: string; not_found: string; error: string }> = {
  gleif: { inactive: 'TESTLEI0INACTIVE0042', not_found: 'TESTLEI0NOTFOUND0010', error: 'TESTLEI0REGERROR0083' },
  sec_edgar: { inactive: '9999999901', not_found: '9999999902', error: '9999999903' },
  uk_ch: { inactive: '99999901', not_found: '99999902', error: '99999903' },
  au_abr: { inactive: '99999990350', not_found: '99999990382', error: '99999990431' },
};

const TEST_SOURCE = 'https://registries.test.invalid';

/** The four registries of one test-mode session, answering from the identifier alone. */
export function testModeRegistries(submitted: BusinessSubmission, now: Clock = systemClock): Record<RegistryName, BusinessRegistry> {
  const make = (name: RegistryName): BusinessRegistry => ({
    name,
    lookup: async (identifier: string): Promise<RegistryAnswer> => {
      const special = TEST_IDENTIFIERS[name];
      const sourceUrl = `${TEST_SOURCE}/${name}/${identifier}`;
      if (identifier === special.error) return { kind: 'error', reason: `${REGISTRY_CHECKS[name].label} answered HTTP 503 (test mode)` };
      if (identifier === special.not_found) return { kind: 'not_found', reason: `${REGISTRY_CHECKS[name].label} has no record of ${identifier} (test mode)`, sourceUrl, raw: '{"test_mode":true,"found":false}', contentType: 'application/json' };
      const raw = JSON.stringify({ test_mode: true, identifier });
      return {
        kind: 'found',
        raw,
        contentType: 'application/json',
        record: {
          registry: name,
          identifier,
          legal_name: submitted.legal_name,
          // SEC EDGAR has no status in live mode either.
          status: name === 'sec_edgar' ? 'unknown' : identifier === special.inactive ? 'inactive' : 'active',
          jurisdiction: REGISTRY_CHECKS[name].home ?? submitted.country ?? null,
          registered_address: null,
          incorporated_on: null,
          source_url: sourceUrl,
          retrieved_at: now().toISOString(),
        },
        context: { aliases: [], flags: name === 'sec_edgar' && identifier === special.inactive ? ['a Form 15 (deregistration) is among the recent filings (test mode)'] : [] },
      };
    },
  });
  return { gleif: make('gleif'), sec_edgar: make('sec_edgar'), uk_ch: make('uk_ch'), au_abr: make('au_abr') };
}
