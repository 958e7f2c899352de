import type { Client } from 'pg';
import { boundSession, expectProblem, signedInUser, type SignedInUser } from '../helpers/data-rights-fixtures';
import { dbClient } from '../helpers/hosted-client';
import { createOidcTenant, startOidcServer, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { eventually, http, type TestServer } from '../helpers/test-server';

/**
 * Text a user sends to /v1/me (docs/security.md, "Input limits"): NUL and unpaired UTF-16
 * surrogates, which PostgreSQL cannot store, are 400 invalid_request, never 500, and never stored.
 * A malformed, oversized or over-limit body gets the same answer there as on a tenant's routes: every
 * route record is mounted the same way (rest-adapter/route-record.ts, mountRoutes).
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

  /** `depth` objects, one inside the other, around 1. */
  const nested = (depth: number): unknown => Array.from({ length: depth }).reduce<unknown>((v) => ({ a: v }), 1);
  const BAD_BODIES: [string, string, string, number][] = [
    ['malformed JSON', '{"display_name":', 'invalid_request', 400],
    ['over 1 MiB', JSON.stringify({ display_name: 'x'.repeat(1024 * 1024 + 1) }), 'payload_too_large', 413],
    ['a NUL in a key', JSON.stringify({ 'display\u0000name': 'Ada' }), 'invalid_request', 400],
    ['an unpaired surrogate in a value', JSON.stringify({ display_name: 'Ada \uD800' }), 'invalid_request', 400],
    ['a 5,000-character string', JSON.stringify({ display_name: 'x'.repeat(5000) }), 'invalid_request', 400],
    ['nesting past the limit', JSON.stringify({ display_name: nested(12) }), 'invalid_request', 400],
  ];

  test.each(BAD_BODIES)('%s gets the same answer on /v1/me routes and tenant routes, read by a schema, by the service, or not at all', async (_what, text, code, status) => {
    const key = { user: user.tenantAccessToken, portal: user.accessToken, tenant: tenant.test_api_key };
    const routes: [string, string, string][] = [
      ['PATCH', '/v1/me/profile', key.user], // the service reads the body
      ['POST', '/v1/me/data-export', key.portal], // takes no body
      ['POST', '/v1/verify/webhooks', key.tenant], // a schema reads the body
      ['POST', '/v1/developer/dsr/initiate', key.tenant], // the service reads the body
      ['POST', '/v1/verify/sessions/vses_0000000000000000000000aa/cancel', key.tenant], // takes no body
    ];
    const answers = await Promise.all(routes.map(([method, path, k]) => http(server, method, path, { key: k, body: text, headers: { 'content-type': 'application/json' } })));
    expect(answers.map((r, i) => [routes[i][1], r.status, r.body?.error?.code])).toEqual(routes.map(([, path]) => [path, status, code]));
  });

  test('a body of another content type is 415 on /v1/me and tenant routes alike', async () => {
    const routes: [string, string, string][] = [
      ['PATCH', '/v1/me/profile', user.tenantAccessToken],
      ['POST', '/v1/verify/webhooks', tenant.test_api_key],
      ['POST', '/v1/developer/dsr/initiate', tenant.test_api_key],
    ];
    const answers = await Promise.all(routes.map(([method, path, k]) => http(server, method, path, { key: k, body: 'display_name=Ada', headers: { 'content-type': 'text/plain' } })));
    expect(answers.map((r, i) => [routes[i][1], r.status, r.body?.error?.code])).toEqual(routes.map(([, path]) => [path, 415, 'unsupported_media_type']));
  });

  test("a delegated request's user_sub with a NUL is 400 at the mount, as on /v1/me, not a database error", async () => {
    const r = await http(server, 'POST', '/v1/developer/dsr/initiate', { key: tenant.test_api_key, json: { user_sub: 'a\u0000b', purpose: 'access', delegated_by_tenant: true, callback_url: 'https://93.184.216.34/dsr' } });
    expectProblem(r, 'invalid_request', 400);
    expect(r.body.error.message).toMatch(/user_sub contains a NUL character/);
  });
});
