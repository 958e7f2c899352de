import type { Client } from 'pg';
import { boundSession, expectProblem, signedInUser, type SignedInUser } from '../helpers/data-rights-fixtures';
import { dbClient } from '../helpers/hosted-client';
import { createOidcTenant, startOidcServer, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { eventually, http, type TestServer } from '../helpers/test-server';

/**
 * Text a user sends to /v1/me (docs/security.md, "Input limits"): NUL and unpaired UTF-16
 * surrogates, which PostgreSQL cannot store, are 400 invalid_request, never 500, and never stored.
 */
describe('user text input on /v1/me', () => {
  let server: TestServer;
  let db: Client;
  let tenant: OidcTenant;
  let user: SignedInUser;

  beforeAll(async () => {
    server = await startOidcServer();
    db = await dbClient(server);
    tenant = await createOidcTenant(server);
    user = await signedInUser(server, tenant, { email: testEmail('texts') });
  });
  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });

  const bad = { nul: 'Ada\u0000Lovelace', loneHigh: 'Ada \uD800', loneLow: '\uDC00 Ada' };

  test.each(['display_name', 'bio'])('PATCH /v1/me/profile refuses NUL and unpaired surrogates in %s with 400', async (field) => {
    for (const value of Object.values(bad)) {
      const r = await http(server, 'PATCH', '/v1/me/profile', { key: user.tenantAccessToken, json: { [field]: value } });
      expectProblem(r, 'invalid_request', 400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.message).toMatch(/NUL character or an unpaired UTF-16 surrogate/);
    }
    const ok = await http(server, 'PATCH', '/v1/me/profile', { key: user.tenantAccessToken, json: { [field]: 'Ada 🦄 Lovelace' } });
    expect(ok.status).toBe(200);
  });

  test('a review reason with NUL or an unpaired surrogate is 400, and opens no case', async () => {
    const id = await boundSession(server, db, tenant, user, { metadata: { test_outcome: 'declined' } });
    await eventually(async () => ((await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key })).body.status === 'failed' ? true : undefined), 60_000);
    for (const value of Object.values(bad)) {
      const r = await http(server, 'POST', `/v1/me/verifications/${id}/review`, { key: user.tenantAccessToken, json: { reason: `This is ${value} wrong` } });
      expectProblem(r, 'invalid_request', 400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    const cases = await http(server, 'GET', `/v1/me/verifications/${id}/review`, { key: user.tenantAccessToken });
    expect(cases.body.data).toEqual([]);
  });
});
