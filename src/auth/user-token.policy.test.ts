import { FIRST_PARTY_CLIENT_ID } from '../oidc/first-party-sign-in';
import type { EndUserActor } from './actor';
import { authorizeUserToken, tenantSliceOf, USER_CAPABILITIES, UserTokenRefusal } from './user-token.policy';
import { ROUTE_POLICY_TABLE } from '../../rest-adapter/v1-routes';

const ME_ROUTE_POLICY = ROUTE_POLICY_TABLE.meRoutes;
const capabilityOfMeRoute = (method: string, path: string) => ROUTE_POLICY_TABLE.capabilityOfMeRoute(method, path);

const NOW = 1_800_000_000_000;
const token = (o: Partial<EndUserActor>): EndUserActor => ({
  kind: 'end_user',
  userId: 'usr_1',
  clientId: 'oc_test_tenant',
  tenantId: 'ten_1',
  sub: 'pairwise-sub-of-the-user',
  livemode: false,
  scopes: [],
  grantId: 'g1',
  authTime: NOW / 1000,
  ...o,
});
const portal = (o: Partial<EndUserActor> = {}) => token({ clientId: FIRST_PARTY_CLIENT_ID, tenantId: null, scopes: ['account', 'account:write', 'data_rights'], ...o });
const refusalOf = (f: () => unknown): { code: string; scope: string } | null => {
  try {
    f();
    return null;
  } catch (err) {
    if (!(err instanceof UserTokenRefusal)) throw err;
    return { code: err.code, scope: err.scope };
  }
};

/** The policy table of D20 in itself; test/e2e/user-token-scopes.test.ts proves it through the built server. */
describe('user token policy (D20)', () => {
  it('names every /v1/me route once, each with a capability of the table', () => {
    const keys = ME_ROUTE_POLICY.map((p) => `${p.method} ${p.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const p of ME_ROUTE_POLICY) expect(Object.keys(USER_CAPABILITIES)).toContain(p.capability);
  });

  it('matches paths with ids and a trailing slash, and knows no other path', () => {
    expect(capabilityOfMeRoute('GET', '/me')).toBe('read_account');
    expect(capabilityOfMeRoute('HEAD', '/me/')).toBe('read_account');
    expect(capabilityOfMeRoute('POST', '/ME/Delete')).toBe('erasure');
    expect(capabilityOfMeRoute('POST', '/me/verifications/vses_abc/review')).toBe('request_review');
    expect(capabilityOfMeRoute('POST', '/me/requests/dsr_x/confirm')).toBe('confirm_delegated_request');
    expect(capabilityOfMeRoute('POST', '/me/verifications/a/b/review')).toBeNull();
    expect(capabilityOfMeRoute('PUT', '/me/profile')).toBeNull();
    expect(capabilityOfMeRoute('GET', '/me/profile/../../verify/sessions')).toBeNull();
  });

  it("counts data_rights only on the account portal's tokens", () => {
    expect(refusalOf(() => authorizeUserToken(token({ scopes: ['data_rights', 'account'] }), 'restriction', 600, NOW))).toEqual({ code: 'insufficient_scope', scope: 'data_rights' });
    expect(authorizeUserToken(portal(), 'restriction', 600, NOW).userId).toBe('usr_1');
  });

  it('needs a sign-in within the window for export and erasure only', () => {
    const stale = portal({ authTime: NOW / 1000 - 601 });
    expect(refusalOf(() => authorizeUserToken(stale, 'export', 600, NOW))).toEqual({ code: 'reauthentication_required', scope: 'data_rights' });
    expect(refusalOf(() => authorizeUserToken(stale, 'erasure', 600, NOW))?.code).toBe('reauthentication_required');
    expect(refusalOf(() => authorizeUserToken(portal({ authTime: null }), 'export', 600, NOW))?.code).toBe('reauthentication_required');
    expect(authorizeUserToken(stale, 'objection', 600, NOW).userId).toBe('usr_1');
    expect(authorizeUserToken(portal({ authTime: NOW / 1000 - 599 }), 'export', 600, NOW).userId).toBe('usr_1');
  });

  it("refuses other credentials with their own codes, and slices a tenant's token to its tenant", () => {
    expect(() => authorizeUserToken(null, 'read_account', 600, NOW)).toThrow(expect.objectContaining({ code: 'unauthorized' }));
    expect(() => authorizeUserToken({ kind: 'tenant_key', tenantId: 't', keyId: 'k', livemode: false, scopes: [] }, 'read_account', 600, NOW)).toThrow(
      expect.objectContaining({ code: 'user_token_required' }),
    );
    expect(tenantSliceOf(token({}))).toBe('ten_1');
    expect(tenantSliceOf(portal())).toBeNull();
  });
});
