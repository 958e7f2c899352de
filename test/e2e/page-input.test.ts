import { createConsoleMember, type ConsoleLogin } from '../helpers/console-login';
import { createUser, startOidcServer, testEmail } from '../helpers/oidc-login';
import { createTenant, eventually, http, type Tenant, type TestServer } from '../helpers/test-server';
import { browse, type CookieJar } from '../../bench/oidc-flow';
import { formsOf, portalJar } from './page-fuzz';

/**
 * Issue #40 finding 10: malformed input to the console, the account portal and the sign-in pages
 * answered 500. Every path segment, query parameter and form field of those pages now goes through
 * /v1's input limits (web/page-input.ts): NUL, unpaired surrogates and over-long strings are a 400
 * page, before anything is looked up or stored; ids and cursors of the wrong shape are not found.
 */
describe('malformed input to the console, the account portal and the sign-in pages', () => {
  let server: TestServer;
  let tenant: Tenant;
  let admin: ConsoleLogin;
  let holder: CookieJar;
  let caseId: string;

  beforeAll(async () => {
    server = await startOidcServer({ RATE_LIMIT_ENABLED: 'false' });
    tenant = await createTenant(server, 'page-input');
    admin = await createConsoleMember(server, tenant.tenant_id, 'admin');
    const email = testEmail('page.input');
    await createUser(server, email);
    holder = await portalJar(server.url, email, 'correct horse battery');
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1', metadata: { test_outcome: 'review' } } });
    caseId = created.body.id;
    await eventually(async () => ((await statusOf(caseId)) === 'manual_review' ? true : undefined), 60_000);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const statusOf = async (id: string) => (await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key })).body.status as string;
  const get = (path: string, cookie = admin.cookie) => fetch(`${server.url}${path}`, { headers: { cookie }, redirect: 'manual' });
  const post = (path: string, form: string, cookie = admin.cookie) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form, redirect: 'manual' });
  const tokenFor = async (page: string, action: string, cookie = admin.cookie): Promise<string> => {
    const html = await (await get(page, cookie)).text();
    const form = formsOf(html, `${server.url}${page}`).find((f) => f.action === action);
    if (!form) throw new Error(`no form for ${action} on ${page}`);
    return encodeURIComponent(form.fields.form_token);
  };
  const refused = async (r: Response) => {
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('data-code="invalid_request"');
  };

  it('finds no console asset named after the prototype (constructor, __proto__, toString)', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) expect((await get(`/console/assets/${name}`)).status).toBe(404);
    expect((await get('/console/assets/console.css')).status).toBe(200);
  });

  it('takes a queue cursor of the wrong shape for the first page, and a NUL in it for a 400', async () => {
    const cursor = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const after of [cursor(['1', 'x']), cursor(['0', 'x']), cursor(['2026-01-01 00:00:00+00', 'vses_\u0000']), cursor(['2026-02-30 00:00:00+00', 'vses_x'])]) {
      const r = await get(`/console/queue?after=${after}`);
      expect(r.status).toBe(303);
    }
    await refused(await get('/console/queue?after=%00'));
    await refused(await get('/console/queue?tier=T1%00'));
    await refused(await get(`/console/queue?after=${'x'.repeat(5000)}`));
    await refused(await get('/console/cases/vses_%00'));
  });

  it('refuses a NUL in a decision reason, a flow name and a key id, and stores nothing', async () => {
    const decide = await tokenFor(`/console/cases/${caseId}`, `/console/cases/${caseId}/decisions`);
    await refused(await post(`/console/cases/${caseId}/decisions`, `form_token=${decide}&decision=approve&reason=fine%00really`));
    expect(await statusOf(caseId)).toBe('manual_review');

    const settings = await tokenFor('/console/settings', '/console/settings/flows');
    await refused(await post('/console/settings/flows', `form_token=${settings}&name=evil%00flow&max_tier=T1`));
    expect(await (await get('/console/settings')).text()).not.toContain('evil');
    await refused(await post('/console/settings/keys/key_%00x/revoke', `form_token=${settings}`));
    await refused(await post('/console/settings/flows', `form_token=${settings}&name=${'f'.repeat(5000)}&max_tier=T1`));
    // The tenant's keys all still work.
    expect((await http(server, 'GET', `/v1/verify/sessions/${caseId}`, { key: tenant.test_api_key })).status).toBe(200);
  });

  it("refuses a NUL or an unpaired surrogate in a passkey assertion's id with the script's 400", async () => {
    // Written by hand: JSON.stringify would escape the lone surrogate, which is what a hostile script sends anyway.
    for (const id of ['"cred\\u0000"', '"cred\\ud800"']) {
      const r = await fetch(`${server.url}/console/second-factor/passkey`, {
        method: 'POST',
        headers: { cookie: admin.cookie, 'content-type': 'application/json', 'x-form-token': 'x' },
        body: `{"id":${id},"rawId":${id},"response":{},"type":"public-key"}`,
      });
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({ error: 'invalid_request' });
    }
  });

  it("refuses a NUL in the portal's client_id and its other parameters", async () => {
    const cookie = holder.header();
    await refused(await post('/account/apps/revoke', 'form_token=x&client_id=oc_test_%00', cookie));
    await refused(await get('/account?lang=%00', cookie));
    await refused(await get('/account/verifications/vses_%00/review', cookie));
    await refused(await get('/account/requests/dsr_x?token=%00', cookie));
    expect((await browse(holder, `${server.url}/account`)).status).toBe(200);
  });

  it("answers the provider's pages' malformed input without a 500", async () => {
    for (const path of [
      '/v1/oidc/auth?client_id=%00&response_type=code&scope=openid&redirect_uri=x&state=%00',
      '/v1/oidc/auth?request_uri=urn:ietf:params:oauth:request_uri:%00&client_id=%00',
      '/v1/oidc/interaction/%00',
      '/v1/oidc/interaction/x/signup?x=%ED%A0%80',
    ]) {
      const r = await get(path, '');
      expect(r.status).toBeLessThan(500);
    }
    const r = await post('/v1/oidc/interaction/x/login', 'email=a%00@example.com&password=x', '');
    expect(r.status).toBe(400);
  });
});
