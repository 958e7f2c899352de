import { createHash, createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { createOidcTenant, startOidcServer, testEmail, userAccessToken, type OidcTenant } from '../helpers/oidc-login';
import { http as call, startServer, testEnv, type TestServer } from '../helpers/test-server';
import { writeChunks } from '../helpers/write-chunks';

/** What the local upstream saw of one request. */
type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; bodySha256: string; bodyBytes: number };

/**
 * docs/decisions.md D18 through the built server: /v1/social, /v1/profiles and /v1/network go, after
 * authentication and metering, to SOCIAL_UPSTREAM_URL (a local server here) with a Service-Actor
 * JWT in place of the caller's credential, streamed both ways; its failures are error bodies.
 */
describe('the gateway proxy (D18)', () => {
  let upstream: http.Server;
  let upstreamUrl = '';
  const seen: Seen[] = [];
  /** The endless answer: bytes the upstream has handed to its socket, and whether the gateway hung up on it. */
  const endless = { written: 0, closed: false };
  let server: TestServer;
  let bare: TestServer;
  let acme: OidcTenant;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      req.on('data', (c: Buffer) => {
        hash.update(c);
        bytes += c.length;
      });
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, bodySha256: hash.digest('hex'), bodyBytes: bytes });
        if (req.url!.startsWith('/v1/social/slow')) return; // never answers: the gateway's timeout
        if (req.url!.startsWith('/v1/network/reset')) return void req.socket.destroy();
        if (req.url!.startsWith('/v1/social/endless')) {
          // 256 MiB, written only as fast as the gateway takes it (the upstream itself never buffers more than a chunk).
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          res.on('close', () => (endless.closed = true));
          const chunk = Buffer.alloc(1024 * 1024, 9);
          return writeChunks(res, chunk, 256, () => (endless.written += chunk.length));
        }
        if (req.url!.startsWith('/v1/social/big')) {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          return writeChunks(res, Buffer.alloc(1024 * 1024, 7), 20);
        }
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', 'keep-alive': 'timeout=5', 'x-upstream': 'yes', connection: 'keep-alive, x-private-hop', 'x-private-hop': 'secret' });
        res.end(JSON.stringify({ ok: true, path: req.url }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    [server, bare] = await Promise.all([
      startOidcServer({ SOCIAL_UPSTREAM_URL: upstreamUrl, SOCIAL_PROXY_TIMEOUT_SECONDS: '1', RATE_LIMIT_ENABLED: 'true', ENVIRONMENT: 'staging' }),
      startServer(testEnv({ RATE_LIMIT_ENABLED: 'false' })),
    ]);
    acme = await createOidcTenant(server, 'Acme Social');
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), bare?.stop()]);
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  /** Verifies the Service-Actor JWT with the gateway's published keys, as an upstream would (docs/gateway.md). */
  const verifiedClaims = async (jwt: string): Promise<Record<string, unknown>> => {
    const jwks = (await call(server, 'GET', '/v1/.well-known/gateway-keys')).body as { keys: (JsonWebKey & { kid: string })[] };
    const [h, p, s] = jwt.split('.');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg: string; kid: string };
    expect(header.alg).toBe('ES256');
    const jwk = jwks.keys.find((k) => k.kid === header.kid)!;
    expect(verify('sha256', Buffer.from(`${h}.${p}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))).toBe(true);
    return JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  };
  const lastSeen = (prefix: string) => [...seen].reverse().find((x) => x.url.startsWith(prefix))!;

  it("passes a tenant key's call with its path and query, a Service-Actor in place of the key, and no hop-by-hop header either way", async () => {
    // node:http rather than fetch: fetch will not send a Connection header of the caller's choosing.
    const r = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = http.get(`${server.url}/v1/social/feed/items?limit=5&after=abc`, {
        headers: { authorization: `Bearer ${acme.test_api_key}`, connection: 'keep-alive, x-client-hop', 'x-client-hop': 'drop me', 'x-kept': 'keep me', cookie: 'a=b' },
        agent: false,
      }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ ok: true, path: '/v1/social/feed/items?limit=5&after=abc' });
    expect(r.headers['x-upstream']).toBe('yes');
    expect(r.headers['x-private-hop']).toBeUndefined();
    expect(r.headers['ratelimit-limit']).toBe('200'); // metered in social_read before the upstream was asked

    const got = lastSeen('/v1/social/feed');
    expect(got.headers.authorization).toBeUndefined();
    expect(got.headers.cookie).toBeUndefined();
    expect(got.headers['x-client-hop']).toBeUndefined();
    expect(got.headers['x-kept']).toBe('keep me');
    expect(got.headers['request-id']).toBe(r.headers['request-id']);
    const claims = await verifiedClaims(String(got.headers['service-actor']));
    expect(claims).toMatchObject({ iss: server.url, aud: upstreamUrl, tenant: acme.tenant_id, livemode: false, actor: 'tenant_key' });
    expect(claims.request_id).toBeUndefined(); // the call's id is its request-id header: the token serves the caller's calls of a half-minute
    expect(String(claims.scope)).toContain('sessions:read');
    expect(Number(claims.exp) - Number(claims.iat)).toBe(60);
  });

  it("reuses a caller's Service-Actor for its next calls, never another caller's: the other mode's key and another tenant get their own", async () => {
    const tokenOf = async (key: string) => {
      const r = await call(server, 'GET', '/v1/social/feed', { key });
      expect(r.status).toBe(200);
      const got = lastSeen('/v1/social/feed');
      expect(got.headers['request-id']).toBe(r.headers.get('request-id'));
      return { token: String(got.headers['service-actor']), requestId: r.headers.get('request-id') };
    };
    const first = await tokenOf(acme.test_api_key);
    const second = await tokenOf(acme.test_api_key);
    expect(second.requestId).not.toBe(first.requestId);
    expect(second.token).toBe(first.token); // signed again once half its 60 s have gone: src/gateway/service-actor.test.ts

    const live = await tokenOf(acme.live_api_key);
    expect(live.token).not.toBe(first.token);
    expect(await verifiedClaims(live.token)).toMatchObject({ tenant: acme.tenant_id, livemode: true });
    const other = await createOidcTenant(server, 'Other Social');
    const theirs = await tokenOf(other.test_api_key);
    expect(theirs.token).not.toBe(first.token);
    expect(await verifiedClaims(theirs.token)).toMatchObject({ tenant: other.tenant_id, livemode: false });
    expect((await tokenOf(acme.test_api_key)).token).toBe(first.token); // another tenant's call in between changes nothing
  });

  it("names the user's pairwise subject and the token's scopes for a user token; refuses a session's client_secret, no credential and a wrong key", async () => {
    const token = await userAccessToken(server, acme, testEmail('lin.gateway'), { create: true, scope: 'openid account' });
    const r = await call(server, 'GET', '/v1/profiles/me', { key: token });
    expect(r.status).toBe(200);
    const claims = await verifiedClaims(String(lastSeen('/v1/profiles/me').headers['service-actor']));
    const accessSub = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub;
    expect(claims).toMatchObject({ actor: 'end_user', tenant: acme.tenant_id, livemode: false, sub: accessSub, scope: 'account' }); // the /v1 token carries the resource's scopes only

    const created = await call(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
    const before = seen.length;
    const asBrowser = await call(server, 'GET', '/v1/social/feed', { key: created.body.client_secret });
    expect([asBrowser.status, asBrowser.body.error.code]).toEqual([403, 'insufficient_scope']);
    const anonymous = await call(server, 'GET', '/v1/social/feed');
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthorized']);
    const wrong = await call(server, 'GET', '/v1/network/graph', { key: 'sk_test_not_a_key_0000000000000000' });
    expect(wrong.status).toBe(401);
    expect(seen.length).toBe(before); // none of them reached the upstream
  });

  it('streams a 5 MiB request body and a 20 MiB answer through without changing a byte', async () => {
    const body = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < body.length; i++) body[i] = (i * 31) % 251;
    const up = await fetch(`${server.url}/v1/profiles/me/avatar`, { method: 'POST', headers: { authorization: `Bearer ${acme.test_api_key}`, 'content-type': 'application/octet-stream' }, body });
    expect(up.status).toBe(201);
    expect(up.headers.get('ratelimit-limit')).toBe('60'); // social_write
    expect(lastSeen('/v1/profiles/me/avatar')).toMatchObject({ method: 'POST', bodyBytes: body.length, bodySha256: createHash('sha256').update(body).digest('hex') });

    const down = await fetch(`${server.url}/v1/social/big`, { headers: { authorization: `Bearer ${acme.test_api_key}` } });
    expect(down.status).toBe(200);
    const bytes = Buffer.from(await down.arrayBuffer());
    expect(bytes.length).toBe(20 * 1024 * 1024);
    expect(bytes.every((b) => b === 7)).toBe(true);
  });

  it('reads from the upstream only as fast as the caller reads, and hangs up on the upstream when the caller goes away', async () => {
    const url = new URL(`${server.url}/v1/social/endless`);
    const caller = http.get(url, { headers: { authorization: `Bearer ${acme.test_api_key}` } });
    const res = await new Promise<http.IncomingMessage>((resolve) => caller.once('response', resolve));
    expect(res.statusCode).toBe(200);
    res.pause(); // the caller stops reading after the headers
    // Wait until the upstream stalls: nothing more leaves it for half a second.
    let last = -1;
    while (endless.written !== last) {
      last = endless.written;
      await new Promise((r) => setTimeout(r, 500));
    }
    // What the socket buffers of both hops hold (a few MiB each on loopback), not the 256 MiB answer.
    expect(endless.written).toBeLessThan(64 * 1024 * 1024);
    caller.destroy();
    for (let i = 0; i < 600 && !endless.closed; i++) await new Promise((r) => setTimeout(r, 100)); // up to 60 s: a hang bound only
    expect(endless.closed).toBe(true);
    expect(endless.written).toBeLessThan(256 * 1024 * 1024);
  });

  it('does not take a caller that stops reading for longer than the timeout for a silent upstream: the answer completes', async () => {
    const caller = http.get(new URL(`${server.url}/v1/social/big`), { headers: { authorization: `Bearer ${acme.test_api_key}` } });
    const res = await new Promise<http.IncomingMessage>((resolve) => caller.once('response', resolve));
    expect(res.statusCode).toBe(200);
    res.pause();
    let bytes = 0;
    const complete = new Promise<boolean>((resolve) => {
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.once('close', () => resolve(res.complete));
    });
    // The gateway holds the upstream back meanwhile: 2.5 s without a byte from it, against SOCIAL_PROXY_TIMEOUT_SECONDS=1.
    await new Promise((r) => setTimeout(r, 2500));
    res.resume();
    expect([await complete, bytes]).toEqual([true, 20 * 1024 * 1024]);
  });

  it('answers an upstream that stays silent with 504, one that drops the connection with 502, and no upstream with 503, each as the error body', async () => {
    const slow = await call(server, 'GET', '/v1/social/slow', { key: acme.test_api_key });
    expect([slow.status, slow.body.error.code]).toEqual([504, 'upstream_timeout']);
    expectToMatchContract('get', '/v1/social/{path}', slow);
    const reset = await call(server, 'DELETE', '/v1/network/reset', { key: acme.test_api_key });
    expect([reset.status, reset.body.error.code]).toEqual([502, 'upstream_unreachable']);
    const tenant = await createOidcTenant(bare, 'No Upstream');
    const none = await call(bare, 'GET', '/v1/social/feed', { key: tenant.test_api_key });
    expect([none.status, none.body.error.code]).toEqual([503, 'upstream_not_configured']);
    expect(JSON.stringify(none.body)).not.toMatch(/at .*\.js/); // no stack
  });

  it('says which environment it is in /healthz and lists production and staging in /openapi.yaml (D19)', async () => {
    expect((await call(server, 'GET', '/healthz')).body.environment).toBe('staging');
    expect((await call(bare, 'GET', '/healthz')).body.environment).toBe('development');
    const doc = await (await fetch(`${server.url}/openapi.yaml`)).text();
    const stagingHost = new URL(server.url);
    stagingHost.hostname = `staging.${stagingHost.hostname}`;
    expect(doc).toContain(`servers:\n  - url: ${server.url}\n    description: Production\n  - url: ${stagingHost.toString().replace(/\/$/, '')}\n    description: Staging\n`);
  });
});
