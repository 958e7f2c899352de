import { captureAndSubmit, decided, passportFields, passportPhoto } from '../helpers/live-session';
import { createOidcTenant, createUser, signInThroughPages, startOidcServer, testEmail, userAccessToken, type OidcTenant } from '../helpers/oidc-login';
import { eventually, http, type TestServer } from '../helpers/test-server';

/**
 * Issue #25, finding 3 (docs/accounts-and-oidc.md, "Binding sessions to users"): a user's
 * `service_verification` is what every tenant's client reads in userinfo, so only live results
 * reach it. A test-mode session decides whatever its tenant asked for; it never awards a badge.
 */
describe("a user's service_verification counts live sessions only", () => {
  let server: TestServer;
  let acme: OidcTenant;
  let globex: OidcTenant;
  let sub = '';
  const lin = testEmail('lin.modes');
  const NONE = { badges: [], tier: null, verified_at: null };

  beforeAll(async () => {
    // CHECK_WORKERS=1: the embedded engines decide the live session in one worker (2 shared cores).
    server = await startOidcServer({ CHECK_WORKERS: '1' });
    acme = await createOidcTenant(server, 'Acme Shop');
    globex = await createOidcTenant(server, 'Globex Bank');
    await createUser(server, lin);
    sub = (await signInThroughPages(server, acme, lin, undefined, { scope: 'openid' })).tokens.claims().sub;
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** What another tenant's client reads about the user now (a fresh sign-in, scope `verification`). */
  const claimSeenByGlobex = async () => {
    const { client, tokens } = await signInThroughPages(server, globex, lin, undefined, { scope: 'openid verification' });
    return (await client.userinfo(tokens.access_token!)).service_verification;
  };
  const testModeSuccess = async () => {
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T2', user_sub: sub } });
    expect(created.status).toBe(201);
    const done = await eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${created.body.id}`, { key: acme.test_api_key });
      return r.body.status === 'success' ? r.body : undefined;
    });
    // The tenant's own record is complete: bound to the user, with the badges it asked for.
    expect(done).toMatchObject({ livemode: false, user_sub: sub, result: { achieved_tier: 'T2' } });
    expect(done.result.badges.length).toBeGreaterThan(0);
  };

  it("leaves the claim untouched when a bound test-mode session succeeds: userinfo at another tenant and /v1/me show no badge", async () => {
    await testModeSuccess();
    expect(await claimSeenByGlobex()).toEqual(NONE);
    const me = await http(server, 'GET', '/v1/me', { key: await userAccessToken(server, acme, lin) });
    expect(me.status).toBe(200);
    expect(me.body.service_verification).toEqual(NONE);
  });

  it('updates it when a bound live session succeeds, and a later test-mode success does not raise it', async () => {
    const holder = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };
    const { id } = await captureAndSubmit(server, acme.live_api_key, 'T1', { document: await passportPhoto(passportFields(holder)), create: { user_sub: sub } });
    const live = await decided(server, acme.live_api_key, id, 180_000);
    expect(live).toMatchObject({ status: 'success', livemode: true, user_sub: sub, result: { achieved_tier: 'T1', badges: ['photo'] } });
    const claim = await claimSeenByGlobex();
    expect(claim).toMatchObject({ badges: ['photo'], tier: 'T1' });
    expect(Date.parse((claim as { verified_at: string }).verified_at)).not.toBeNaN();

    await testModeSuccess(); // T2 with liveness, in test mode
    expect(await claimSeenByGlobex()).toEqual(claim);
  });
});
