import type { Actor } from './actor';
import { answerOf, CREDENTIAL_KINDS, refusalOfTenantRoute } from './authorization-policy';
import { ALL_ROUTE_POLICY, routePolicyOfRequest } from '../../rest-adapter/v1-routes';

const key = (scopes: string[]): Actor => ({ kind: 'tenant_key', tenantId: 'ten_a', keyId: 'k', livemode: false, scopes: scopes as never });
const user: Actor = { kind: 'end_user', userId: 'usr_1', clientId: 'oc_test_a', tenantId: 'ten_a', sub: 'pairwise-sub', livemode: false, scopes: ['account'], grantId: 'g', authTime: null };
const secret: Actor = { kind: 'session_client', tenantId: 'ten_a', sessionId: 'vses_1', livemode: false };

/** The table in itself; test/e2e/authorization-matrix.test.ts proves every cell through the built server. */
describe('authorization policy', () => {
  it('names each route once and answers every credential on every route', () => {
    const keys = ALL_ROUTE_POLICY.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of ALL_ROUTE_POLICY) for (const c of CREDENTIAL_KINDS) expect(answerOf(r.guard, c)).toBeDefined();
  });

  it('never lets another tenant\'s credential read A\'s session: 404 or a refusal, never allowed', () => {
    for (const r of ALL_ROUTE_POLICY.filter((p) => p.path.includes(':id') && p.guard.kind !== 'own_credential'))
      for (const c of ['other_tenant_key', 'other_tenant_user', 'other_tenant_client_secret', 'other_tenant_page_credential'] as const) {
        const a = answerOf(r.guard, c);
        if (a !== 'same_as_none' && a.allowed && r.path.startsWith('/v1/me/') && !r.path.includes('verifications')) continue; // the user's own request ids, not A's
        expect([r.path, c, a !== 'same_as_none' && a.allowed]).toEqual([r.path, c, false]);
      }
  });

  it('finds the row of a request as Express matches it: case-insensitive, a trailing slash, HEAD as GET', () => {
    expect(routePolicyOfRequest('GET', '/v1/verify/sessions/vses_abc')?.path).toBe('/v1/verify/sessions/:id');
    expect(routePolicyOfRequest('HEAD', '/V1/Verify/Sessions/vses_abc/')?.path).toBe('/v1/verify/sessions/:id');
    expect(routePolicyOfRequest('POST', '/v1/verify/sessions/a/b/chip')).toBeUndefined();
  });

  it('refuses, before the route reads the request, a user token, a client_secret where it is not the credential, and a key without the scope', () => {
    const create = routePolicyOfRequest('POST', '/v1/verify/sessions')!.guard;
    const read = routePolicyOfRequest('GET', '/v1/verify/sessions/vses_1')!.guard;
    const chip = routePolicyOfRequest('POST', '/v1/verify/sessions/vses_1/chip')!.guard;
    expect(refusalOfTenantRoute(create, null)?.code).toBe('unauthorized');
    expect(refusalOfTenantRoute(create, user)?.code).toBe('insufficient_scope');
    expect(refusalOfTenantRoute(create, secret)?.code).toBe('insufficient_scope');
    expect(refusalOfTenantRoute(create, key(['sessions:read']))?.code).toBe('insufficient_scope');
    expect(refusalOfTenantRoute(create, key(['sessions:write']))).toBeNull();
    expect(refusalOfTenantRoute(read, secret)).toBeNull();
    expect(refusalOfTenantRoute(chip, key(['sessions:write']))?.code).toBe('insufficient_scope');
    expect(refusalOfTenantRoute(chip, secret)).toBeNull();
  });
});
