import { testModeResult } from '../sessions/test-mode-outcome';
import { testModeRegistryRun, withTestModeRegistries } from './test-mode-business';

describe('a T4 test session decided on its clock with the business its page gave', () => {
  const business = (uk: string) => ({ legal_name: 'Acme Widgets Ltd', country: 'GB', uk_company_number: uk });

  it('keeps an approved outcome and its business badge when the test identifiers find an active company', async () => {
    const run = (await testModeRegistryRun(business('12345678')))!;
    const decided = withTestModeRegistries('T4', testModeResult('T4', 'approved'), run, 'GB');
    expect(decided.status).toBe('success');
    expect(decided.result.badges).toContain('business');
    expect(decided.result.checks.find((c) => c.name === 'uk_company_register')).toMatchObject({ status: 'pass', reason: expect.stringContaining('Acme Widgets Ltd') });
  });

  it('declines for an inactive company whatever the test outcome asked, and never lifts a declined outcome', async () => {
    const inactive = (await testModeRegistryRun(business('99999901')))!;
    for (const outcome of ['approved', 'review', 'declined'] as const) {
      const decided = withTestModeRegistries('T4', testModeResult('T4', outcome), inactive, 'GB');
      expect(decided).toMatchObject({ status: 'failed', result: { decision: 'declined' } });
    }
    const active = (await testModeRegistryRun(business('12345678')))!;
    expect(withTestModeRegistries('T4', testModeResult('T4', 'declined'), active, 'GB').status).toBe('failed');
    expect(withTestModeRegistries('T4', testModeResult('T4', 'review'), active, 'GB').status).toBe('manual_review');
  });

  it('changes nothing without a legal name', async () => {
    expect(await testModeRegistryRun(null)).toBeNull();
    expect(await testModeRegistryRun({ uk_company_number: '12345678' })).toBeNull();
  });
});
