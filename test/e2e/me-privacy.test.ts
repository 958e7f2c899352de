import { createOidcTenant, createUser, portalAccessToken, signInThroughPages, startOidcServer, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { graphql, http, type TestServer } from '../helpers/test-server';

/**
 * A tenant's client is shown the user by its pairwise subject only, and a claim only with the scope
 * that grants it (docs/accounts-and-oidc.md, "What a token is shown"; docs/security.md, finding 11):
 * two tenants cannot link the same person through `GET /v1/me`, `GET /v1/me/profile` or GraphQL's
 * `viewer` and `myProfile`. The account portal still sees the whole account.
 */

let server: TestServer;
let acme: OidcTenant;
let globex: OidcTenant;
const ada = testEmail('ada-private');
/** Acme asked for nothing but the account; Globex for the email and the profile as well. */
let atAcme: string;
let atGlobex: string;

const subOf = (jwt: string): string => (JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as { sub: string }).sub;

beforeAll(async () => {
  server = await startOidcServer();
  [acme, globex] = await Promise.all([createOidcTenant(server, 'Acme Private'), createOidcTenant(server, 'Globex Private')]);
  await createUser(server, ada);
  atAcme = (await signInThroughPages(server, acme, ada, undefined, { resource: true, scope: 'openid account account:write' })).tokens.access_token!;
  atGlobex = (await signInThroughPages(server, globex, ada, undefined, { resource: true, scope: 'openid email profile account' })).tokens.access_token!;
});
afterAll(async () => {
  await server?.stop();
});

describe("a tenant's token", () => {
  it('reads GET /v1/me with its own pairwise subject and no usr_ id, creation time, verified fields or unscoped claim', async () => {
    const a = await http(server, 'GET', '/v1/me', { key: atAcme });
    expect(a.status).toBe(200);
    expectToMatchContract('GET', '/v1/me', a);
    expect(Object.keys(a.body).sort()).toEqual(['sessions', 'state', 'sub']);
    expect(a.body.sub).toBe(subOf(atAcme));
    expect(a.text).not.toContain('usr_');
    expect(a.text).not.toContain(ada);

    const g = await http(server, 'GET', '/v1/me', { key: atGlobex });
    expect(g.status).toBe(200);
    expectToMatchContract('GET', '/v1/me', g);
    expect(Object.keys(g.body).sort()).toEqual(['email', 'email_verified', 'profile', 'sessions', 'state', 'sub']);
    expect(g.body).toMatchObject({ sub: subOf(atGlobex), email: ada, email_verified: true });
    expect(g.text).not.toContain('usr_');
    // The two tenants hold different subjects for the same person, and nothing else they are shown in common.
    expect(g.body.sub).not.toBe(a.body.sub);
  });

  it('reads GET /v1/me/profile and PATCHes it without seeing the account id, the verified fields or the whole account', async () => {
    const a = await http(server, 'GET', '/v1/me/profile', { key: atAcme });
    expect(a.status).toBe(200);
    expectToMatchContract('GET', '/v1/me/profile', a);
    expect(a.body).toEqual({ sub: subOf(atAcme), state: 'active' });
    const patched = await http(server, 'PATCH', '/v1/me/profile', { key: atAcme, json: { bio: 'from acme' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ sub: subOf(atAcme), state: 'active' });
    const g = await http(server, 'GET', '/v1/me/profile', { key: atGlobex });
    expect(g.body).toEqual({ sub: subOf(atGlobex), display_name: null, handle: null, public_links: [], bio: 'from acme', state: 'active' });
    expect(g.text).not.toContain('usr_');
  });

  it("is shown the same through GraphQL's viewer and myProfile: null for what it may not see", async () => {
    const q = '{ viewer { sub id email emailVerified displayName serviceVerification { tier } } myProfile { sub id bio legalName objections { processing } pendingChanges { id } } }';
    const a = await graphql(server, q, {}, atAcme);
    expect(a.body.errors).toBeUndefined();
    expect(a.body.data.viewer).toEqual({ sub: subOf(atAcme), id: null, email: null, emailVerified: null, displayName: null, serviceVerification: null });
    expect(a.body.data.myProfile).toEqual({ sub: subOf(atAcme), id: null, bio: null, legalName: null, objections: null, pendingChanges: null });
    const g = await graphql(server, q, {}, atGlobex);
    expect(g.body.data.viewer).toMatchObject({ sub: subOf(atGlobex), id: null, email: ada, emailVerified: true });
    expect(g.body.data.myProfile).toMatchObject({ sub: subOf(atGlobex), id: null, bio: 'from acme', legalName: null });
    expect(JSON.stringify([a.body, g.body])).not.toContain('usr_');
  });
});

describe('the account portal', () => {
  it('still sees the whole account: its id, email, verified fields and creation time', async () => {
    const { tokens } = await portalAccessToken(server, ada);
    const me = await http(server, 'GET', '/v1/me', { key: tokens.access_token! });
    expect(me.status).toBe(200);
    expectToMatchContract('GET', '/v1/me', me);
    expect(me.body).toMatchObject({ id: expect.stringMatching(/^usr_[A-Za-z0-9]{24}$/), email: ada, verified: { legal_name: null }, created_at: expect.any(String) });
    const profile = await http(server, 'GET', '/v1/me/profile', { key: tokens.access_token! });
    expect(profile.body).toMatchObject({ id: me.body.id, bio: 'from acme', objections: [], pending_changes: [] });
  });
});
