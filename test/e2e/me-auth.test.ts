import { createOidcTenant, createUser, signInThroughPages, startOidcServer, userAccessToken, type OidcTenant, testEmail } from '../helpers/oidc-login';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { graphql, http, ROOT, type TestServer } from '../helpers/test-server';

/** /v1/me takes only the end user's JWT access token for the /v1 resource (docs/accounts-and-oidc.md). */
describe('/v1/me authentication', () => {
  let server: TestServer;
  let tenant: OidcTenant;
  let token: string;

  beforeAll(async () => {
    server = await startOidcServer();
    tenant = await createOidcTenant(server);
    token = await userAccessToken(server, tenant, testEmail('ada'), { create: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('a user signed in through the pages reads their own account with the access token', async () => {
    const r = await http(server, 'GET', '/v1/me', { key: token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ email: testEmail('ada'), email_verified: true, state: 'active', service_verification: { badges: [], tier: null } });
    // A tenant's client knows the user by its pairwise subject, never by the account's id (test/e2e/me-privacy.test.ts).
    expect(r.body.sub).toBe(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub);
    expect(r.body.id).toBeUndefined();
    expectToMatchContract('GET', '/v1/me', r);
  });

  test('openapi.yaml lists the OIDC routes, and every endpoint discovery names is one of them', async () => {
    const doc = YAML.parse(fs.readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const discovery = await http(server, 'GET', '/v1/oidc/.well-known/openid-configuration');
    expectToMatchContract('GET', '/v1/oidc/.well-known/openid-configuration', discovery);
    const endpoints = Object.entries(discovery.body as Record<string, unknown>).filter(([k, v]) => (k.endsWith('_endpoint') || k === 'jwks_uri') && typeof v === 'string');
    expect(endpoints.length).toBeGreaterThanOrEqual(7);
    for (const [name, url] of endpoints) {
      const p = new URL(url as string).pathname;
      expect([name, p, Boolean(doc.paths[p])]).toEqual([name, p, true]);
    }
    expect(doc.paths['/v1/oauth2/token']?.post).toBeDefined();
  });

  test("GraphQL's viewer answers a user token and refuses a tenant key with user_token_required", async () => {
    const mine = await graphql(server, '{ viewer { sub id email emailVerified serviceVerification { badges tier } } }', {}, token);
    expect(mine.body.errors).toBeUndefined();
    expect(mine.body.data.viewer).toMatchObject({ id: null, email: testEmail('ada'), emailVerified: true, serviceVerification: { badges: [], tier: null } });
    expect(mine.body.data.viewer.sub).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const tenantKey = await graphql(server, '{ viewer { id } }', {}, tenant.test_api_key);
    expect(tenantKey.body.errors[0].extensions.code).toBe('user_token_required');
  });

  test('a tenant key sets its OIDC redirect URIs through GraphQL; a live key may not add an http URI', async () => {
    const added = await graphql(server, 'mutation { updateOidcRedirectUris(input: { add: ["http://127.0.0.1:8/cb"] }) { clientId redirectUris } }', {}, tenant.test_api_key);
    expect(added.body.data.updateOidcRedirectUris.clientId).toBe(tenant.test_client_id);
    expect(added.body.data.updateOidcRedirectUris.redirectUris).toContain('http://127.0.0.1:8/cb');
    const live = await graphql(server, 'mutation { updateOidcRedirectUris(input: { add: ["http://127.0.0.1:8/cb"] }) { clientId } }', {}, tenant.live_api_key);
    expect(live.body.errors[0].extensions.code).toBe('invalid_request');
  });

  test('a tenant API key on /v1/me is refused with user_token_required', async () => {
    const r = await http(server, 'GET', '/v1/me', { key: tenant.test_api_key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('user_token_required');
    expectToMatchContract('GET', '/v1/me', r);
  });

  test('no token, a tampered token and a token for userinfo (no /v1 audience) are 401', async () => {
    expect((await http(server, 'GET', '/v1/me')).status).toBe(401);
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${s}`;
    const tampered = await http(server, 'GET', '/v1/me', { key: forged });
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe('unauthorized');
    await createUser(server, testEmail('grace'));
    const { tokens } = await signInThroughPages(server, tenant, testEmail('grace'));
    expect((await http(server, 'GET', '/v1/me', { key: tokens.access_token })).status).toBe(401);
  });
});
