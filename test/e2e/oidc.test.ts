import { generators, Issuer, errors as oidcErrors } from 'openid-client';
import { browse, CookieJar, createOidcTenant, createUser, follow, relyingParty, signInThroughPages, startOidcServer, TEST_REDIRECT_URI, type OidcTenant, testEmail } from '../helpers/oidc-login';
import { eventually, http, type TestServer } from '../helpers/test-server';

/**
 * The service as an OpenID Provider, driven by a relying party no one here wrote (panva's
 * openid-client): discovery, PAR, code + PKCE through both token addresses, refresh rotation,
 * userinfo, revocation, logout, pairwise subjects and sessions bound to users (docs/accounts-and-oidc.md).
 */
/**
 * The server's access tokens live this long here: long enough that a token is never expired by the time a loaded
 * machine uses it (issue 47), short enough that the expiry test's token, minted first, has expired by its turn.
 */
const ACCESS_TOKEN_TTL_SECONDS = 30;

describe('OpenID Provider', () => {
  let server: TestServer;
  let acme: OidcTenant;
  let globex: OidcTenant;
  /** A sign-in made first, whose access token has expired by the time its test runs; `since`: when it was minted. */
  let early: Awaited<ReturnType<typeof signInThroughPages>> & { since: number; answered: number };

  beforeAll(async () => {
    server = await startOidcServer({ OIDC_ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL_SECONDS) });
    acme = await createOidcTenant(server, 'Acme Shop');
    globex = await createOidcTenant(server, 'Globex Bank');
    await createUser(server, testEmail('ada'));
    const signIn = await signInThroughPages(server, acme, testEmail('ada'), undefined, { resource: true });
    early = { ...signIn, since: Date.now(), answered: (await http(server, 'GET', '/v1/me', { key: signIn.tokens.access_token })).status };
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('discovery names the documented endpoints and only the code flow with S256', async () => {
    const issuer = await Issuer.discover(`${server.url}/v1/oidc/.well-known/openid-configuration`);
    const m = issuer.metadata;
    expect(m.issuer).toBe(`${server.url}/v1/oidc`);
    expect(m.authorization_endpoint).toBe(`${server.url}/v1/oidc/auth`);
    expect(m.token_endpoint).toBe(`${server.url}/v1/oidc/token`);
    expect(m.userinfo_endpoint).toBe(`${server.url}/v1/oidc/userinfo`);
    expect(m.pushed_authorization_request_endpoint).toBe(`${server.url}/v1/oidc/par`);
    expect(m.revocation_endpoint).toBe(`${server.url}/v1/oidc/revoke`);
    expect(m.end_session_endpoint).toBe(`${server.url}/v1/oidc/logout`);
    expect(m.jwks_uri).toBe(`${server.url}/v1/oidc/jwks`);
    expect(m.code_challenge_methods_supported).toEqual(['S256']);
    expect(m.response_types_supported).toEqual(['code']);
    expect(m.subject_types_supported).toEqual(['pairwise']);
    expect(m.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile', 'verification']));
    const jwks = await http(server, 'GET', '/v1/oidc/jwks');
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.body.keys[0].d).toBeUndefined();
  });

  test('an authorization request without PKCE is refused', async () => {
    const client = await relyingParty(server, acme);
    await expect(client.pushedAuthorizationRequest({ scope: 'openid', state: 'x' })).rejects.toThrow(/PKCE/);
  });

  test('code flow with PAR and PKCE: ID token, userinfo with the claims of the scopes, refresh rotation, revocation', async () => {
    const { tokens, client } = await signInThroughPages(server, acme, testEmail('ada'));
    const claims = tokens.claims();
    expect(claims.iss).toBe(`${server.url}/v1/oidc`);
    expect(claims.aud).toBe(acme.test_client_id);
    const info = await client.userinfo(tokens.access_token!);
    expect(info).toMatchObject({ sub: claims.sub, email: testEmail('ada'), email_verified: true, service_verification: { badges: [], tier: null, verified_at: null } });

    const refreshed = await client.refresh(tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    // Rotation: the old refresh token is spent (and, being reused, ends the grant).
    await expect(client.refresh(tokens.refresh_token!)).rejects.toBeInstanceOf(oidcErrors.OPError);

    const again = await signInThroughPages(server, acme, testEmail('ada'));
    await client.revoke(again.tokens.refresh_token!, 'refresh_token');
    await expect(client.refresh(again.tokens.refresh_token!)).rejects.toThrow(/invalid_grant/);
  });

  test('the token endpoint alias /v1/oauth2/token exchanges a code like /v1/oidc/token', async () => {
    const client = await relyingParty(server, acme);
    const aliased = new client.issuer.Client({ ...client.metadata });
    aliased.issuer.metadata.token_endpoint = `${server.url}/v1/oauth2/token`;
    const jar = new CookieJar();
    const verifier = generators.codeVerifier();
    const par = await aliased.pushedAuthorizationRequest({ scope: 'openid email', code_challenge: generators.codeChallenge(verifier), code_challenge_method: 'S256', state: 's1' });
    let hop = await follow(jar, await browse(jar, aliased.authorizationUrl({ request_uri: par.request_uri })), TEST_REDIRECT_URI);
    hop = await follow(jar, await browse(jar, new URL(/action="([^"]+)"/.exec(hop.html)![1], hop.url).href, { email: testEmail('ada'), password: 'correct horse battery' }), TEST_REDIRECT_URI);
    if (!hop.location?.startsWith(TEST_REDIRECT_URI)) hop = await follow(jar, await browse(jar, new URL(/action="([^"]+)"/.exec(hop.html)![1], hop.url).href, {}), TEST_REDIRECT_URI);
    const tokens = await aliased.callback(TEST_REDIRECT_URI, aliased.callbackParams(hop.location!), { code_verifier: verifier, state: 's1' });
    expect(tokens.claims().iss).toBe(`${server.url}/v1/oidc`);
    expect(tokens.access_token).toBeDefined();
    aliased.issuer.metadata.token_endpoint = `${server.url}/v1/oidc/token`;
  });

  test('RP-initiated logout ends the provider session: the next authorization asks to sign in again', async () => {
    const { tokens, client, jar } = await signInThroughPages(server, acme, testEmail('ada'));
    const logout = await browse(jar, client.endSessionUrl({ id_token_hint: tokens.id_token, post_logout_redirect_uri: TEST_REDIRECT_URI, state: 'bye' }));
    // The provider asks for confirmation with a form that posts back to it.
    expect(logout.status).toBe(200);
    const form = /<form[^>]*action="([^"]+)"[\s\S]*?<\/form>/.exec(logout.html)!;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(form[0])![1];
    const done = await browse(jar, new URL(form[1], logout.url).href, { xsrf, logout: 'yes' });
    expect(done.location).toMatch(new RegExp(`^${TEST_REDIRECT_URI.replace(/[/.]/g, '\\$&')}\\?state=bye`));
    const verifier = generators.codeVerifier();
    const par = await client.pushedAuthorizationRequest({ scope: 'openid', code_challenge: generators.codeChallenge(verifier), code_challenge_method: 'S256' });
    const page = await follow(jar, await browse(jar, client.authorizationUrl({ request_uri: par.request_uri })), TEST_REDIRECT_URI);
    expect(page.html).toContain('name="password"');
  });

  test('pairwise: one person signing in to two tenants gets two subjects, and each binds sessions only with its own', async () => {
    const a = await signInThroughPages(server, acme, testEmail('ada'));
    const b = await signInThroughPages(server, globex, testEmail('ada'));
    const subA = a.tokens.claims().sub;
    const subB = b.tokens.claims().sub;
    expect(subA).not.toBe(subB);
    expect((await a.client.userinfo(a.tokens.access_token!)).sub).toBe(subA);

    const bound = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1', user_sub: subA } });
    expect(bound.status).toBe(201);
    expect(bound.body.user_sub).toBe(subA);
    const read = await http(server, 'GET', `/v1/verify/sessions/${bound.body.id}`, { key: acme.test_api_key });
    expect(read.body.user_sub).toBe(subA);
    // Globex's subject of the same person means nothing to Acme.
    const foreign = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1', user_sub: subB } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('invalid_request');
  });

  test('a bound T2 test session leaves service_verification untouched (live results only: service-verification-modes.test.ts); /v1/me lists it', async () => {
    await createUser(server, testEmail('lin'));
    const first = await signInThroughPages(server, globex, testEmail('lin'));
    const sub = first.tokens.claims().sub;
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: globex.test_api_key, json: { flow_id: 'default', tier: 'T2', user_sub: sub } });
    expect(created.status).toBe(201);
    const done = await eventually(async () => {
      const s = await http(server, 'GET', `/v1/verify/sessions/${created.body.id}`, { key: globex.test_api_key });
      return s.body.status === 'success' ? s.body : undefined;
    });
    expect(done.result.badges.length).toBeGreaterThan(0);
    // Access tokens live 4 s on this server: sign in again to read the claims now.
    const after = await signInThroughPages(server, globex, testEmail('lin'));
    expect(after.tokens.claims().sub).toBe(sub);
    const info = await after.client.userinfo(after.tokens.access_token!);
    expect(info.service_verification).toEqual({ badges: [], tier: null, verified_at: null });

    const withoutScope = await signInThroughPages(server, globex, testEmail('lin'), undefined, { scope: 'openid email' });
    expect((await withoutScope.client.userinfo(withoutScope.tokens.access_token!)).service_verification).toBeUndefined();

    const me = await signInThroughPages(server, globex, testEmail('lin'), undefined, { resource: true });
    const view = await http(server, 'GET', '/v1/me', { key: me.tokens.access_token });
    expect(view.status).toBe(200);
    expect(view.body.service_verification.tier).toBeNull();
    expect(view.body.sessions.map((s: { id: string }) => s.id)).toContain(created.body.id);
  });

  test('/v1/me refuses an expired token, an ID token (wrong audience and type) and a token whose grant was revoked', async () => {
    const { tokens, client, since, answered } = early;
    expect(answered).toBe(200); // when it was minted
    expect((await http(server, 'GET', '/v1/me', { key: tokens.id_token })).status).toBe(401);
    // Waited out (its expiry is in the signed token): minted first, its lifetime has mostly passed during the other tests.
    const expiresIn = since + (ACCESS_TOKEN_TTL_SECONDS + 1) * 1000 - Date.now();
    if (expiresIn > 0) await new Promise((r) => setTimeout(r, expiresIn));
    const expired = await http(server, 'GET', '/v1/me', { key: tokens.access_token });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('unauthorized');

    const fresh = await client.refresh(tokens.refresh_token!, { exchangeBody: { resource: `${server.url}/v1` } });
    expect((await http(server, 'GET', '/v1/me', { key: fresh.access_token })).status).toBe(200);
    await client.revoke(fresh.refresh_token!, 'refresh_token'); // revoking the refresh token ends its grant
    expect((await http(server, 'GET', '/v1/me', { key: fresh.access_token })).status).toBe(401);
  });
});
