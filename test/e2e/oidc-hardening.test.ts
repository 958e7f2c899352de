import nodeHttp from 'node:http';
import { generators } from 'openid-client';
import { openPage, pageCall } from '../helpers/hosted-client';
import { createOidcTenant, relyingParty, startOidcServer, type OidcTenant } from '../helpers/oidc-login';
import { cli, eventually, http, type TestServer } from '../helpers/test-server';

/**
 * The last findings of issue 25 (docs/accounts-and-oidc.md, docs/security.md): a pushed request
 * works once, the account pages' return path stays on the account pages, client redirect URIs
 * follow the one return-URL rule, and a client that abandons an upload is not an error.
 */
describe('OIDC and account-page hardening', () => {
  let server: TestServer;
  let tenant: OidcTenant;

  beforeAll(async () => {
    server = await startOidcServer();
    tenant = await createOidcTenant(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const get = (path: string) => fetch(`${server.url}${path}`, { redirect: 'manual' });
  /** A flow starts (to the sign-in pages), or the provider refuses the request_uri (an error page, or the error sent to the client's redirect URI). */
  const outcomeOf = (r: Response): string => {
    const location = r.headers.get('location') ?? '';
    if (r.status === 303 && /\/v1\/oidc\/interaction\//.test(location)) return 'flow';
    if (r.status === 400 || /[?&]error=invalid_request_uri/.test(location)) return 'refused';
    return `${r.status} ${location}`;
  };

  test('a pushed authorization request’s request_uri starts one flow only; a second use is refused', async () => {
    const client = await relyingParty(server, tenant);
    const par = await client.pushedAuthorizationRequest({ scope: 'openid', code_challenge: generators.codeChallenge(generators.codeVerifier()), code_challenge_method: 'S256' });
    const url = new URL(client.authorizationUrl({ request_uri: par.request_uri }));
    const first = await get(`${url.pathname}${url.search}`);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(/\/v1\/oidc\/interaction\//);
    const second = await get(`${url.pathname}${url.search}`);
    expect(outcomeOf(second)).toBe('refused');
    // Two at once: one wins.
    const again = await client.pushedAuthorizationRequest({ scope: 'openid', code_challenge: generators.codeChallenge(generators.codeVerifier()), code_challenge_method: 'S256' });
    const u2 = new URL(client.authorizationUrl({ request_uri: again.request_uri }));
    const both = await Promise.all([get(`${u2.pathname}${u2.search}`), get(`${u2.pathname}${u2.search}`)]);
    expect(both.map(outcomeOf).sort()).toEqual(['flow', 'refused']);
  });

  test('a request_uri is single-use whichever way it is sent: POST /auth, a repeated parameter or HEAD never start a second flow', async () => {
    const client = await relyingParty(server, tenant);
    // The provider serves the authorization endpoint by GET only (oidc-provider's enableHttpPostMethods is off), so a
    // request_uri in a POST body is refused whether or not it was used, and posting it does not spend it for GET.
    const post = (requestUri: string) =>
      fetch(`${server.url}/v1/oidc/auth`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: tenant.test_client_id, request_uri: requestUri }).toString(),
      });
    const refusedOrAbsent = (r: Response) => (r.status === 404 ? 'refused' : outcomeOf(r));
    const pushed = () => client.pushedAuthorizationRequest({ scope: 'openid', code_challenge: generators.codeChallenge(generators.codeVerifier()), code_challenge_method: 'S256' });
    const par = await pushed();
    expect(refusedOrAbsent(await post(par.request_uri))).toBe('refused');
    const url = new URL(client.authorizationUrl({ request_uri: par.request_uri }));
    expect(outcomeOf(await get(`${url.pathname}${url.search}`))).toBe('flow');
    expect(refusedOrAbsent(await post(par.request_uri))).toBe('refused');
    expect(outcomeOf(await get(`${url.pathname}${url.search}`))).toBe('refused');
    // The parameter twice, or a HEAD first: still one flow at most.
    const twice = await pushed();
    const u2 = new URL(client.authorizationUrl({ request_uri: twice.request_uri }));
    const doubled = await get(`${u2.pathname}${u2.search}&request_uri=${encodeURIComponent(twice.request_uri)}`);
    expect(doubled.headers.get('location')).toMatch(/[?&]error=invalid_request&/);
    const head = await fetch(`${server.url}${u2.pathname}${u2.search}`, { method: 'HEAD', redirect: 'manual' });
    expect(head.status).toBeLessThan(500);
    const after = await get(`${u2.pathname}${u2.search}`);
    const flows = [head.status === 303 && /\/v1\/oidc\/interaction\//.test(head.headers.get('location') ?? '') ? 'flow' : 'refused', outcomeOf(after)];
    expect(flows.filter((f) => f === 'flow').length).toBeLessThanOrEqual(1);
  });

  test.each([
    '/account/..%2F..%2Fv1%2Fme',
    '/account/%2e%2e/%2e%2e/v1/me',
    '/account/keep/..%252F..%252Fgraphql',
    '/account/./keep',
    '/account/%5C%5Cevil.example',
  ])('the account pages refuse the return path %s with 403 and send nobody anywhere', async (path) => {
    const r = await get(`/account/sign-in?return=${encodeURIComponent(path)}`);
    expect(r.status).toBe(403);
    expect(r.headers.get('location')).toBeNull();
  });

  test('an account page’s own path is still a return path', async () => {
    const r = await get(`/account/sign-in?return=${encodeURIComponent('/account/keep/vses_AAAAAAAAAAAAAAAAAAAA?lang=de-DE')}`);
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toMatch(/\/v1\/oidc\/auth\?/);
  });

  test.each([
    ['test', 'javascript:alert(1)'],
    ['test', 'data:text/html,hi'],
    ['test', 'http://evil.example/cb'],
    ['live', 'http://127.0.0.1:9/cb'],
  ])('`client redirect-uris --mode %s` refuses %s', async (mode, uri) => {
    const r = await cli(server.env, ['client', 'redirect-uris', '--tenant', tenant.tenant_id, '--mode', mode, '--add', uri, '--json']);
    expect(r.code).not.toBe(0);
    expect(`${r.stderr}${r.stdout}`).toMatch(/https/);
  });

  test('an upload the client abandons is logged at info, with no stack and no 500', async () => {
    // Live: a test session's clock would end the capture (D22) whatever the client does.
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.live_api_key, json: { flow_id: 'default', tier: 'T2' } });
    expect(created.status).toBe(201);
    const page = await openPage(server, created.body);
    await pageCall(server, page, 'POST', 'start');
    const url = new URL(`${server.url}/v1/hosted/sessions/${page.id}/artifacts?class=selfie_image`);
    await new Promise<void>((resolve) => {
      const req = nodeHttp.request(url, { method: 'POST', headers: { 'content-type': 'image/jpeg', 'content-length': String(2 * 1024 * 1024), authorization: `Bearer ${page.credential}` } });
      req.on('error', () => resolve());
      req.write(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(256 * 1024, 7)]));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 500);
    });
    const logs = await eventually(async () => {
      const all = await server.settledLogs();
      return /client aborted the request/.test(all) ? all : undefined;
    });
    const lines = logs.split('\n').filter((l) => l.includes('aborted'));
    expect(lines.some((l) => /"level":30/.test(l) && /artifacts/.test(l))).toBe(true);
    expect(logs).not.toMatch(/unhandled error/);
    expect(logs).not.toMatch(/"level":50/);
    expect(lines.join('\n')).not.toMatch(/"stack"/);
  });
});
