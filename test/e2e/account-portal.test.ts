import { randomBytes } from 'node:crypto';
import { browse, CookieJar, createOidcTenant, createUser, signInThroughPages, startOidcServer, TENANT_ACCOUNT_SCOPE, testEmail, type Hop, type OidcTenant, type SignIn } from '../helpers/oidc-login';
import { passInteraction } from '../../bench/oidc-flow';
import { eventually, http, type TestServer } from '../helpers/test-server';

/**
 * The account portal at /account over HTTP, as a browser posts it (D20, docs/accounts-and-oidc.md,
 * "The account portal"): every sign-in goes through the provider's real pages; what tenants then see
 * is read with their API keys and their users' tokens.
 */
/**
 * Export and erasure need a sign-in this recent (REAUTHENTICATION_WINDOW_SECONDS). Long enough that a fresh sign-in
 * is never stale by the time a loaded machine uses it; the stale sign-in is made first, so its wait runs with the tests.
 */
const WINDOW_SECONDS = 30;
/** Handles are unique across accounts: one of this run's own (a PostgreSQL server keeps earlier runs' users). */
const HANDLE = `ada_${randomBytes(4).toString('hex')}`;

describe('the account portal', () => {
  let server: TestServer;
  let acme: OidcTenant;
  let globex: OidcTenant;
  const ada = testEmail('ada.portal');
  let adaAtAcme: SignIn;
  let adaAtGlobex: SignIn;
  const sessions: Record<string, string> = {};
  let jar: CookieJar;
  /** A sign-in made at the start, older than the window by the time its test runs; `since`: when it was made. */
  let stale: { jar: CookieJar; deleteToken: string; since: number };

  const callbackUri = () => `${server.url}/account/callback`;
  const url = (path: string) => `${server.url}${path}`;
  const formToken = (hop: Hop, action: string): string => {
    const form = new RegExp(`<form method="post" action="${action.replace(/[/]/g, '\\/')}"[^>]*><input type="hidden" name="form_token" value="([^"]+)"`).exec(hop.html);
    if (!form) throw new Error(`no form for ${action} on ${hop.url}:\n${hop.html.slice(0, 400)}`);
    return form[1];
  };

  /** Signs in from a portal page's redirect to the provider, and follows the callback back to the page. */
  async function signInFrom(j: CookieJar, hop: Hop, email: string): Promise<Hop> {
    expect(hop.status).toBe(303);
    const authorization = new URL(hop.location!);
    expect(authorization.origin + authorization.pathname).toBe(url('/v1/oidc/auth'));
    expect(authorization.searchParams.get('client_id')).toBe('service-account-pages');
    expect(authorization.searchParams.get('prompt')).toBe('login');
    const back = await passInteraction(j, hop.location!, callbackUri(), email, 'correct horse battery');
    const callback = await browse(j, back);
    expect(callback.status).toBe(303);
    return browse(j, callback.location!);
  }

  async function portal(email: string, path = '/account'): Promise<{ jar: CookieJar; page: Hop }> {
    const j = new CookieJar();
    const page = await signInFrom(j, await browse(j, url(path)), email);
    return { jar: j, page };
  }

  const readAs = (tenant: OidcTenant, id: string) => http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key });
  const overview = () => browse(jar, url('/account'));

  beforeAll(async () => {
    server = await startOidcServer({ RATE_LIMIT_ENABLED: 'false', REAUTHENTICATION_WINDOW_SECONDS: String(WINDOW_SECONDS) });
    [acme, globex] = [await createOidcTenant(server, 'Acme Shop'), await createOidcTenant(server, 'Globex Bank')];
    await createUser(server, ada);
    const early = await portal(ada, '/account/delete');
    stale = { jar: early.jar, deleteToken: formToken(early.page, '/account/delete'), since: Date.now() };
    adaAtAcme = await signInThroughPages(server, acme, ada, undefined, { resource: true, scope: TENANT_ACCOUNT_SCOPE });
    adaAtGlobex = await signInThroughPages(server, globex, ada, undefined, { resource: true, scope: TENANT_ACCOUNT_SCOPE });
    // Each tenant verifies Ada under the subject its sign-in gave it; a test session resolves 10 s after creation.
    for (const [key, tenant, signIn] of [
      ['acme', acme, adaAtAcme],
      ['globex', globex, adaAtGlobex],
    ] as const) {
      const r = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T2', user_sub: signIn.tokens.claims().sub } });
      expect(r.status).toBe(201);
      sessions[key] = r.body.id;
    }
    await Promise.all(
      (['acme', 'globex'] as const).map((k) => eventually(async () => ((await readAs(k === 'acme' ? acme : globex, sessions[k])).body.status === 'success' ? true : undefined))),
    );
    ({ jar } = await portal(ada));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('signs in through the provider (prompt=login) and shows the profile, the verifications at every tenant by display name, the apps and the rights', async () => {
    const page = await overview();
    expect(page.status).toBe(200);
    expect(page.html).toContain('<html lang="en-US"');
    expect(page.html).toContain(`Signed in as ${ada}.`);
    for (const heading of ['Profile', 'Verifications', 'Connected apps', 'Your requests', 'Your rights']) expect(page.html).toContain(`>${heading}</h2>`);
    expect(page.html).toContain('Acme Shop');
    expect(page.html).toContain('Globex Bank');
    expect(page.html).toContain(`/account/verifications/${sessions.acme}/review`);
    expect(page.html).toContain(`/account/verifications/${sessions.globex}/review`);
    expect(page.html).toContain('Remove access for Acme Shop');
    expect(page.html).toContain('Remove access for Globex Bank');
    expect(page.html).toContain('14 days');
    // Server-rendered, no script (the pages' CSP), never cached.
    expect(page.html).not.toMatch(/<script/i);
    const head = await fetch(url('/account'), { headers: { cookie: jar.header() } });
    expect(head.headers.get('content-security-policy')).toMatch(/script-src/);
    expect(head.headers.get('cache-control')).toBe('no-store');
  });

  it('speaks de-DE when the browser asks for it', async () => {
    const page = await browse(jar, url('/account'), undefined, { 'accept-language': 'de-DE,de;q=0.9' });
    expect(page.html).toContain('<html lang="de-DE"');
    expect(page.html).toContain('Ihr Konto');
    expect(page.html).toContain('Zugriff für Acme Shop entfernen');
  });

  it('edits the profile; a stale form token, a NUL and a bad handle change nothing and answer 400, never 500', async () => {
    const form = await browse(jar, url('/account/profile'));
    expect(form.status).toBe(200);
    const token = formToken(form, '/account/profile');
    const saved = await browse(jar, url('/account/profile'), { form_token: token, display_name: 'Ada L.', handle: HANDLE, bio: 'Counts things.', public_links: 'https://example.com/ada' });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(url('/account?done=done_profile'));
    const page = await browse(jar, saved.location!);
    expect(page.html).toContain('Your profile is saved.');
    expect(page.html).toContain('Ada L.');
    // The tenant's own token reads the same profile through /v1/me/profile.
    const me = await http(server, 'GET', '/v1/me/profile', { headers: { authorization: `Bearer ${adaAtAcme.tokens.access_token}` } });
    expect(me.body).toMatchObject({ display_name: 'Ada L.', handle: HANDLE, bio: 'Counts things.', public_links: ['https://example.com/ada'] });

    for (const [body, field] of [
      [{ form_token: 'forged', display_name: 'Mallory' }, null],
      [{ form_token: token, display_name: 'Ada\u0000' }, null],
      [{ form_token: token, display_name: 'Ada', handle: 'No Spaces!' }, 'handle'],
      [{ form_token: token, display_name: 'Ada', public_links: 'http://plain.example' }, 'public_links'],
    ] as const) {
      const refused = await browse(jar, url('/account/profile'), body as Record<string, string>);
      expect(refused.status).toBe(400);
      expect(refused.html).toContain('There is a problem');
      if (field) expect(refused.html).toContain(`id="${field}"`);
    }
    expect((await http(server, 'GET', '/v1/me/profile', { headers: { authorization: `Bearer ${adaAtAcme.tokens.access_token}` } })).body.display_name).toBe('Ada L.');
  });

  it('revokes a connected app: its refresh token no longer works and its access token is refused at once; the other app keeps working', async () => {
    expect((await http(server, 'GET', '/v1/me', { headers: { authorization: `Bearer ${adaAtAcme.tokens.access_token}` } })).status).toBe(200);
    const page = await overview();
    const token = formToken(page, '/account/apps/revoke');
    const acmeClient = new RegExp(`name="client_id" value="(${acme.test_client_id})"`).exec(page.html)?.[1];
    expect(acmeClient).toBe(acme.test_client_id);

    // Without the form token (another site's form), nothing happens.
    expect((await browse(jar, url('/account/apps/revoke'), { client_id: acme.test_client_id })).status).toBe(303);
    expect((await http(server, 'GET', '/v1/me', { headers: { authorization: `Bearer ${adaAtAcme.tokens.access_token}` } })).status).toBe(200);

    const revoked = await browse(jar, url('/account/apps/revoke'), { form_token: token, client_id: acme.test_client_id });
    expect(revoked.location).toBe(url('/account?done=done_revoked'));
    const refused = await http(server, 'GET', '/v1/me', { headers: { authorization: `Bearer ${adaAtAcme.tokens.access_token}` } });
    expect(refused.status).toBe(401);
    await expect(adaAtAcme.client.refresh(adaAtAcme.tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });

    expect((await http(server, 'GET', '/v1/me', { headers: { authorization: `Bearer ${adaAtGlobex.tokens.access_token}` } })).status).toBe(200);
    const refreshed = await adaAtGlobex.client.refresh(adaAtGlobex.tokens.refresh_token!, { exchangeBody: { resource: url('/v1') } });
    expect(refreshed.access_token).toBeTruthy();
    adaAtGlobex = { ...adaAtGlobex, tokens: refreshed };
    const after = await overview();
    expect(after.html).not.toContain('Remove access for Acme Shop');
    expect(after.html).toContain('Remove access for Globex Bank');
  });

  it('restricts processing and lifts it: tenants read 409 user_restricted meanwhile; the requests show their deadlines', async () => {
    const restrict = await browse(jar, url('/account/restrict'), { form_token: formToken(await overview(), '/account/restrict') });
    expect(restrict.location).toBe(url('/account?done=done_restrict'));
    expect((await readAs(globex, sessions.globex)).status).toBe(409);
    const page = await overview();
    expect(page.html).toContain('Lift the restriction');
    expect(page.html).toMatch(/<h3 class="card__title">Restriction<\/h3>/);
    expect(page.html).toContain('Answer by');

    const lift = await browse(jar, url('/account/restrict/lift'), { form_token: formToken(page, '/account/restrict/lift') });
    expect(lift.location).toBe(url('/account?done=done_lift'));
    expect((await readAs(globex, sessions.globex)).status).toBe(200);
  });

  it('records an objection and a biometric purge, each a request of its own', async () => {
    const object = await browse(jar, url('/account/object'), { form_token: formToken(await overview(), '/account/object') });
    expect(object.location).toBe(url('/account?done=done_object'));
    const purge = await browse(jar, url('/account/biometrics/delete'), { form_token: formToken(await overview(), '/account/biometrics/delete') });
    expect(purge.location).toBe(url('/account?done=done_biometrics'));
    const page = await overview();
    expect(page.html).toContain('You objected to feed ranking on');
    expect(page.html).toMatch(/<h3 class="card__title">Objection<\/h3>/);
    expect(page.html).toMatch(/<h3 class="card__title">Deleting your face data<\/h3>/);
    const requests = await http(server, 'GET', '/v1/me/requests', { headers: { authorization: `Bearer ${adaAtGlobex.tokens.access_token}` } });
    expect(requests.status).toBe(200);
  });

  it("asks for a review of any tenant's decision; an unknown or another user's verification is 404", async () => {
    const form = await browse(jar, url(`/account/verifications/${sessions.acme}/review`));
    expect(form.status).toBe(200);
    expect(form.html).toContain('Acme Shop');
    const action = `/account/verifications/${sessions.acme}/review`;
    const token = formToken(form, action);
    const short = await browse(jar, url(action), { form_token: token, reason: 'x' });
    expect(short.status).toBe(400);
    const nul = await browse(jar, url(action), { form_token: token, reason: 'bad\u0000reason' });
    expect(nul.status).toBe(400);
    const sent = await browse(jar, url(action), { form_token: token, reason: 'My document was valid.' });
    expect(sent.location).toBe(url('/account?done=done_review'));
    expect((await overview()).html).toMatch(/<h3 class="card__title">Review of a decision<\/h3>/);

    const other = testEmail('bob.portal');
    await createUser(server, other);
    const bob = await portal(other);
    expect(bob.page.html).toContain('No verification is kept in your account yet.');
    expect((await browse(bob.jar, url(`/account/verifications/${sessions.acme}/review`))).status).toBe(404);
    expect((await browse(bob.jar, url('/account/verifications/vses_0000000000000000/review'))).status).toBe(404);
    // Ada's form token is bound to Ada's sign-in: Bob's session cannot use it.
    expect((await browse(bob.jar, url('/account/restrict'), { form_token: formToken(await overview(), '/account/restrict') })).location).toBe(url('/account'));
  });

  it('exports: request, then the download with its document key shown once', async () => {
    // Export needs a sign-in within the window: the request starts with one.
    const { jar: asking, page: form } = await portal(ada, '/account/export');
    expect(form.status).toBe(200);
    expect(form.url).toBe(url('/account/export'));
    const asked = await browse(asking, url('/account/export'), { form_token: formToken(form, '/account/export') });
    expect(asked.location).toBe(url('/account?done=done_export'));
    const id = await eventually(async () => /href="\/account\/exports\/(dsr_[A-Za-z0-9]+)"/.exec((await overview()).html)?.[1], 60_000, 500);

    // The key is part of the export: it needs a recent sign-in too, so sign in afresh to read it.
    const fresh = await portal(ada, `/account/exports/${id}`);
    expect(fresh.page.status).toBe(200);
    const key = /id="document-key"[^>]*>([^<]+)<\/textarea>/.exec(fresh.page.html)?.[1];
    expect(key).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    const link = /href="([^"]+bundle\.zip[^"]*)"/.exec(fresh.page.html)![1].replace(/&amp;/g, '&');
    const zip = await fetch(link);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');

    const again = await browse(fresh.jar, url(`/account/exports/${id}`));
    expect(again.status).toBe(200);
    expect(again.html).not.toContain(key!);
    expect(again.html).toContain('was shown on');
    expect(again.html).toContain('bundle.zip');
  });

  it('export and erasure need a sign-in within the window: a stale one signs in again with max_age and comes back', async () => {
    // Waited out, not moved: the sign-in's time is sealed in the portal's cookie. Waiting longer only makes it staler.
    const staleIn = stale.since + (WINDOW_SECONDS + 1) * 1000 - Date.now();
    if (staleIn > 0) await new Promise((r) => setTimeout(r, staleIn));
    const { jar: staleJar, deleteToken } = stale;
    const expectReauthentication = (hop: Hop) => {
      expect(hop.status).toBe(303);
      const authorization = new URL(hop.location!);
      expect(authorization.searchParams.get('max_age')).toBe(String(WINDOW_SECONDS));
      expect(authorization.searchParams.get('prompt')).toBe('login');
    };
    for (const path of ['/account/export', '/account/delete']) expectReauthentication(await browse(staleJar, url(path)));
    // A POST with a stale sign-in (and a good form token) does nothing and sends the browser to sign in again.
    expectReauthentication(await browse(staleJar, url('/account/delete'), { form_token: deleteToken }));
    expect((await readAs(acme, sessions.acme)).status).toBe(200);
    // The rest of the portal does not need a recent sign-in.
    expect((await browse(staleJar, url('/account'))).status).toBe(200);
    const back = await signInFrom(staleJar, await browse(staleJar, url('/account/delete')), ada);
    expect(back.status).toBe(200);
    expect(back.url).toBe(url('/account/delete'));
    expect(back.html).toContain('14 days');
  });

  it('deletes the account with its 14-day window explained: signed out, tenants read 404, the portal signs in again', async () => {
    const { jar: fresh, page } = await portal(ada, '/account/delete');
    expect(page.status).toBe(200);
    expect(page.html).toContain('For 14 days');
    const deleted = await browse(fresh, url('/account/delete'), { form_token: formToken(page, '/account/delete') });
    expect(deleted.status).toBe(200);
    expect(deleted.html).toContain('Your account is deleted');
    expect(deleted.html).toMatch(/id="deleted"/);
    expect((await readAs(acme, sessions.acme)).status).toBe(404);
    const after = await browse(fresh, url('/account'));
    expect(after.status).toBe(303);
    expect(after.location).toMatch(/\/v1\/oidc\/auth\?/);
    // The old cookie (still in the first jar) is refused too.
    expect((await overview()).status).toBe(303);
  });
});
