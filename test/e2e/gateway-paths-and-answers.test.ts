import { expectToMatchContract } from '../helpers/openapi-contract';
import { RecordingUpstream, rawExchange } from '../helpers/recording-upstream';
import { createTenant, http as call, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * What the gateway hands the upstream as a path, and what it hands the caller of the upstream's
 * answer (docs/security.md, issue 40 finding 5). Paths go on a raw socket: fetch would resolve the
 * dot-segments itself. The gateway's origin also serves /console and /account, so an upstream's
 * cookie or page must never act there.
 */
describe('the gateway normalises upstream paths and passes only the answer itself', () => {
  let upstream: RecordingUpstream;
  let server: TestServer;
  let tenant: Tenant;

  beforeAll(async () => {
    upstream = await RecordingUpstream.start();
    upstream.answer = (req, res) => {
      if (req.url === '/base/v1/social/cut-answer') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '100' });
        res.write(Buffer.alloc(10));
        setTimeout(() => res.socket?.destroy(), 50);
        return true;
      }
      if (req.url !== '/base/v1/social/page') return false;
      res.writeHead(200, [
        ['content-type', 'text/html'],
        ['set-cookie', 'console_session=forged; Path=/console; HttpOnly'],
        ['set-cookie', 'account_session=forged; Path=/account'],
        ['clear-site-data', '"cookies"'],
        ['content-security-policy', 'default-src *'],
        ['x-content-type-options', 'sniff-away'],
        ['connection', 'keep-alive, x-upstream-hop'],
        ['x-upstream-hop', 'private'],
        ['keep-alive', 'timeout=99'],
        ['x-kept', 'yes'],
        ['request-id', 'req_upstreams_own'],
      ].flat());
      res.end('<!doctype html><script>document.cookie</script>');
      return true;
    };
    // An upstream URL with a path of its own: the gateway's paths go below it.
    server = await startServer(testEnv({ SOCIAL_UPSTREAM_URL: `${upstream.url}/base/`, RATE_LIMIT_ENABLED: 'false' }));
    tenant = await createTenant(server, 'Paths');
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  const get = (target: string, extra = '') => rawExchange(server.port, `GET ${target} HTTP/1.1\r\nHost: gateway.test\r\nAuthorization: Bearer ${tenant.test_api_key}\r\n${extra}\r\n`);

  it.each([
    ['dot-segments out of the surface', '/v1/social/../../data-rights/v1/users/usr_x/erasure'],
    ['escaped slashes', '/v1/social/..%2f..%2fdata-rights/v1/users/usr_x/posts'],
    ['escaped dots', '/v1/social/%2e%2e/%2e%2e/data-rights/v1/users/usr_x/posts'],
    ['escaped dots in upper case into another surface', '/v1/social/%2E%2E/profiles/me'],
    ['an escaped slash inside a segment', '/v1/social/feed%2Fitems'],
    ['an escaped backslash', '/v1/social/..%5c..%5cdata-rights'],
    ['backslashes', '/v1/social/..\\..\\data-rights'],
    ['path parameters on a dot-segment', '/v1/social/..;/..;/data-rights/v1/users/usr_x/posts'],
    ['doubly escaped dots', '/v1/social/%252e%252e/%252e%252e/data-rights'],
    ['a broken escape', '/v1/social/feed%zz'],
    ['the surface itself left by ..', '/v1/social/..'],
  ])('refuses %s with 400 invalid_request, and nothing reaches the upstream', async (_what, target) => {
    const before = upstream.received.length;
    const r = await get(target);
    expect([r.status, (r.body?.error as { code?: string } | undefined)?.code]).toEqual([400, 'invalid_request']);
    expect(upstream.received.length).toBe(before);
  });

  it.each([
    ['/v1/social/a/./b/../c?q=%2e%2e/..&x=1', '/v1/social/a/c?q=%2e%2e/..&x=1'], // the query is the upstream's to read, as sent
    ['/v1/social/%7euser/%41%62c/%c3%a9', '/v1/social/~user/Abc/%C3%A9'],
    ['/v1/social/feed/..', '/v1/social/'],
    ['/v1/profiles/me/../them', '/v1/profiles/them'],
    ['/v1/network', '/v1/network'],
  ])('hands the upstream %s as %s, below the upstream URL\'s own path', async (target, normalised) => {
    const expected = `/base${normalised}`;
    const r = await get(target);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ path: expected, tenant: tenant.tenant_id });
    expect(upstream.received.at(-1)).toMatchObject({ url: expected, tenant: tenant.tenant_id });
    // The gateway's own Host for the upstream, whatever the caller sent.
    expect(upstream.received.at(-1)!.headers.host).toBe(new URL(upstream.url).host);
  });

  it('answers a path refusal and a framing refusal with the documented error body', async () => {
    const r = await call(server, 'GET', '/v1/social/feed%2F..%2F..', { key: tenant.test_api_key });
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
    expectToMatchContract('get', '/v1/social/{path}', r);
  });

  it("passes no cookie, origin-wide header or upstream framing to the caller, and the answer can never run as a page of the gateway's origin", async () => {
    const r = await get('/v1/social/page');
    expect(r.status).toBe(200);
    const [head, body] = [r.raw.slice(0, r.raw.indexOf('\r\n\r\n')).toLowerCase(), r.raw.slice(r.raw.indexOf('\r\n\r\n') + 4)];
    const lines = head.split('\r\n').slice(1);
    const values = (name: string) => lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trim());
    expect(values('set-cookie')).toEqual([]);
    expect(values('clear-site-data')).toEqual([]);
    expect(values('x-upstream-hop')).toEqual([]);
    expect(values('keep-alive')).not.toContain('timeout=99'); // the gateway's own Keep-Alive only
    expect(values('content-security-policy')).toEqual(['sandbox']);
    expect(values('x-content-type-options')).toEqual(['nosniff']);
    expect(values('x-kept')).toEqual(['yes']);
    expect(values('content-type')).toEqual(['text/html']);
    expect(values('request-id')).toHaveLength(1);
    expect(values('request-id')[0]).not.toBe('req_upstreams_own'); // the gateway's own id
    expect(values('connection')).toEqual(['keep-alive']); // the gateway's connection to the caller, not the upstream's
    expect(values('transfer-encoding')).toEqual(['chunked']); // framed by the gateway: the upstream's answer had no length
    expect(body).toContain('<script>document.cookie</script>');
  });

  it('passes the length of an answer the upstream framed by Content-Length, and marks a JSON answer nosniff and sandboxed too', async () => {
    const res = await fetch(`${server.url}/v1/social/feed`, { headers: { authorization: `Bearer ${tenant.test_api_key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    const text = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual({ path: '/base/v1/social/feed', tenant: tenant.tenant_id });
  });

  it("cuts the caller's connection when the upstream's answer ends short of its length: it never looks complete", async () => {
    const res = await fetch(`${server.url}/v1/social/cut-answer`, { headers: { authorization: `Bearer ${tenant.test_api_key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('100');
    await expect(res.arrayBuffer()).rejects.toThrow();
  });
});
