import { createOidcTenant, createUser, signInThroughPages, startOidcServer, userAccessToken, type OidcTenant } from '../helpers/oidc-login';
import { http, type TestServer } from '../helpers/test-server';

/** /v1/me takes only the end user's JWT access token for the /v1 resource (docs/accounts-and-oidc.md). */
describe('/v1/me authentication', () => {
  let server: TestServer;
  let tenant: OidcTenant;
  let token: string;

  beforeAll(async () => {
    server = await startOidcServer();
    tenant = await createOidcTenant(server);
    token = await userAccessToken(server, tenant, 'ada@example.com', { create: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('a user signed in through the pages reads their own account with the access token', async () => {
    const r = await http(server, 'GET', '/v1/me', { key: token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ email: 'ada@example.com', email_verified: true, state: 'active', service_verification: { badges: [], tier: null } });
    expect(r.body.id).toMatch(/^usr_[A-Za-z0-9]{24}$/);
  });

  test('a tenant API key on /v1/me is refused with user_token_required', async () => {
    const r = await http(server, 'GET', '/v1/me', { key: tenant.test_api_key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('user_token_required');
  });

  test('no token, a tampered token and a token for userinfo (no /v1 audience) are 401', async () => {
    expect((await http(server, 'GET', '/v1/me')).status).toBe(401);
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${s}`;
    const tampered = await http(server, 'GET', '/v1/me', { key: forged });
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe('unauthorized');
    await createUser(server, 'grace@example.com');
    const { tokens } = await signInThroughPages(server, tenant, 'grace@example.com');
    expect((await http(server, 'GET', '/v1/me', { key: tokens.access_token })).status).toBe(401);
  });
});
