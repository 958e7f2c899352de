import { randomBytes } from 'node:crypto';
import nodeHttp from 'node:http';
import { gzipSync } from 'node:zlib';
import { cli, createTenant, eventually, graphql, http, logsThrough, startServer, Tenant, testEnv, TestServer } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * The findings of the hardening review (docs/security.md), each through the public surface. Two
 * servers: `strict` runs with the production default (no private webhook targets); `dev` allows
 * them, as a developer's machine does, so its webhooks reach this file's local receiver.
 */

let strict: TestServer;
let dev: TestServer;
let receiver: WebhookReceiver;
let acme: Tenant;

const ADMIN_API_KEY = `op_admin_${randomBytes(24).toString('hex')}`;
const errorLines = (logs: string) => logs.split('\n').filter((l) => l.includes('"level":50'));
/** `strict`'s log through a request of its own: every line of the requests before it has been written. */
const logsSoFar = async () => logsThrough(strict, (await http(strict, 'GET', '/healthz')).headers.get('request-id')!);

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  // Side by side: each starts on a copy of the run's migrated database (test/helpers/test-server.ts), so neither
  // initialises one (that had made two starts at once outlast the start-up timeout on the 2-core CI machine).
  // `dev` listens where a server does without a HOST setting (every interface); `strict` on 127.0.0.1 only.
  [strict, dev] = await Promise.all([
    startServer(testEnv({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', ADMIN_API_KEY })),
    startServer(testEnv({ WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_TIMEOUT_SECONDS: '6', HOST: undefined })),
  ]);
  acme = await createTenant(strict, 'acme');
});

afterAll(async () => {
  await Promise.all([strict?.stop(), dev?.stop()]);
  await receiver?.close();
});

describe('webhook targets (finding 1)', () => {
  const register = (key: string, url: string) => http(strict, 'POST', '/v1/verify/webhooks', { key, json: { url, events: ['verification.completed'] } });

  it.each([
    ['loopback', 'http://127.0.0.1:9/x'],
    ['private 10/8', 'http://10.0.0.1/x'],
    ['private 192.168/16', 'http://192.168.1.10/x'],
    ['shared 100.64/10', 'http://100.64.0.1/x'],
    ['6to4 relay anycast', 'http://192.88.99.1/x'],
    ['6to4', 'http://[2002:a00:1::1]/x'],
    ['IPv4-compatible IPv6', 'http://[::7f00:1]/x'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/x'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
  ])('refuses a %s receiver in test mode', async (_what, url) => {
    const r = await register(acme.test_api_key, url);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.message).toMatch(/not allowed/);
  });

  it.each([
    ['6to4', 'https://[2002:a00:1::1]/x'],
    ['IPv4-compatible IPv6', 'https://[::a00:1]/x'],
    ['6to4 relay anycast', 'https://192.88.99.1/x'],
  ])('refuses a %s receiver in live mode', async (_what, url) => {
    const r = await register(acme.live_api_key, url);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/not allowed/);
  });

  it('accepts a public address', async () => {
    const r = await register(acme.live_api_key, 'https://93.184.216.34/hooks');
    expect(r.status).toBe(201);
  });
});

describe('deliveries in one batch (findings 2 and 11)', () => {
  it('stores a response holding a NUL, and its batch neighbours are delivered and logged once', async () => {
    const [a, b, c] = await Promise.all(['nul-a', 'nul-b', 'nul-c'].map((n) => createTenant(dev, n)));
    receiver.on('/a', () => ({ status: 200, body: 'ok' }));
    receiver.on('/b', () => ({ status: 200, body: 'ok\u0000nul' }));
    receiver.on('/c', () => ({ status: 410 }));
    const endpoints: Record<string, string> = {};
    for (const [name, t] of [
      ['a', a],
      ['b', b],
      ['c', c],
    ] as const) {
      const r = await http(dev, 'POST', '/v1/verify/webhooks', { key: t.test_api_key, json: { url: receiver.url(`/${name}`), events: ['verification.completed', 'verification.failed'] } });
      expect(r.status).toBe(201);
      endpoints[name] = r.body.id;
    }
    // Test-mode sessions complete 10 s after creation, together: their deliveries share a fetch.
    await Promise.all([a, b, c].map((t) => http(dev, 'POST', '/v1/verify/sessions', { key: t.test_api_key, json: { flow_id: 'default', tier: 'T1' } })));
    const attemptsOf = async (t: Tenant, endpointId: string) =>
      (await graphql(dev, `{ webhookAttempts(endpointId: "${endpointId}") { id attempt succeeded statusCode responseBody } }`, {}, t.test_api_key)).body.data?.webhookAttempts as
        | { id: string; attempt: number; succeeded: boolean; statusCode: number; responseBody: string }[]
        | undefined;
    const logged = await eventually(async () => {
      const [la, lb] = [await attemptsOf(a, endpoints.a), await attemptsOf(b, endpoints.b)];
      return la?.length && lb?.length ? { la, lb } : undefined;
    });
    // Long enough for a failed batch to have been sent again several times.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(receiver.at('/a')).toHaveLength(1);
    expect(receiver.at('/b')).toHaveLength(1);
    expect(logged.la).toMatchObject([{ attempt: 1, succeeded: true, statusCode: 200, responseBody: 'ok' }]);
    expect(logged.lb).toMatchObject([{ attempt: 1, succeeded: true, statusCode: 200, responseBody: 'ok\uFFFDnul' }]);
    // Finding 11: public ids are random and prefixed, never the global sequence.
    expect(logged.la[0].id).toMatch(/^watt_[A-Za-z0-9]{24}$/);
    const audit = await eventually(async () => {
      const r = await graphql(dev, '{ auditLog { id action subjectId } }', {}, c.test_api_key);
      return r.body.data?.auditLog?.length ? (r.body.data.auditLog as { id: string; action: string; subjectId: string }[]) : undefined;
    });
    expect(audit[0]).toMatchObject({ action: 'webhook_endpoint.disabled', subjectId: endpoints.c });
    expect(audit[0].id).toMatch(/^aud_[A-Za-z0-9]{24}$/);
  });
});

describe('API keys (findings 3 and 4)', () => {
  it('does not let a test key revoke a live key', async () => {
    const t = await createTenant(strict, 'keys-mode');
    const live = await cli(strict.env, ['key', 'create', '--tenant', t.tenant_id, '--mode', 'live', '--json']);
    const liveKeyId = live.json!.key_id as string;
    const r = await graphql(strict, 'mutation($id: ID!) { revokeApiKey(id: $id) }', { id: liveKeyId }, t.test_api_key);
    expect(r.body.errors[0].extensions.code).toBe('not_found');
    const stillWorks = await http(strict, 'GET', '/v1/verify/sessions/vses_0000000000000000000000aa', { key: live.json!.api_key as string });
    expect(stillWorks.status).toBe(404);
    // Its own mode's keys it still manages.
    const own = await cli(strict.env, ['key', 'create', '--tenant', t.tenant_id, '--mode', 'test', '--json']);
    expect((await graphql(strict, 'mutation($id: ID!) { revokeApiKey(id: $id) }', { id: own.json!.key_id }, t.test_api_key)).body.data).toEqual({ revokeApiKey: true });
  });

  it('mints only keys whose scopes are a subset of the calling key', async () => {
    const t = await createTenant(strict, 'keys-scope');
    const narrow = await cli(strict.env, ['key', 'create', '--tenant', t.tenant_id, '--mode', 'test', '--scopes', 'keys:manage', '--json']);
    const key = narrow.json!.api_key as string;
    for (const args of ['', '(scopes: [])']) {
      const r = await graphql(strict, `mutation { createApiKey${args} { scopes } }`, {}, key);
      expect(r.body.data.createApiKey.scopes).toEqual(['keys:manage']);
    }
    const wider = await graphql(strict, 'mutation { createApiKey(scopes: ["keys:manage", "sessions:write"]) { scopes } }', {}, key);
    expect(wider.body.errors[0].extensions.code).toBe('insufficient_scope');
    expect(wider.body.errors[0].message).toMatch(/sessions:write/);
  });
});

describe('client mistakes are 4xx with the error body (finding 7)', () => {
  const expectError = (r: { status: number; body: any }, status: number, code: string) => {
    expect([r.status, r.body?.error?.code]).toEqual([status, code]);
    expect(r.body.error.request_id).toMatch(/^req_/);
  };

  it.each([
    '/v1/verify/sessions/%ZZ',
    '/v1/verify/sessions/%E0%A4%A',
    '/v1/verify/manual-review/%ZZ',
    '/v1/verify/sessions/%ZZ/chip',
    '/v1/developer/webhooks/%E0%A4%A/replay',
    '/hosted/%ZZ',
    '/errors/%ZZ',
  ])('answers a broken percent-escape in %s with 400', async (p) => {
    const post = /chip|replay|manual-review/.test(p);
    expectError(await http(strict, post ? 'POST' : 'GET', p, { key: acme.test_api_key, ...(post ? { json: {} } : {}) }), 400, 'invalid_request');
  });

  it('answers URLs past the 16 KiB header limit with 431 and the error body, without resetting the connection', async () => {
    // A client still sending its long URL when the server closed used to see a reset ("other side closed") instead of an answer.
    const answers = await Promise.all(
      [20_000, 70_000, 1_000_000].flatMap((n) =>
        Array.from({ length: 5 }, async () => {
          const res = await fetch(`${strict.url}/graphql?query=${'a'.repeat(n)}`, { headers: { accept: 'application/json' } });
          return { status: res.status, body: await res.json() };
        }),
      ),
    );
    for (const r of answers) {
      expect(r.status).toBe(431);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', request_id: expect.stringMatching(/^req_/) });
    }
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('has no error page named %s', async (name) => {
    expectError(await http(strict, 'GET', `/errors/${name}`), 404, 'not_found');
  });

  it.each(['gzip', 'deflate', 'br'])('refuses a body that is not %s-encoded as it claims', async (encoding) => {
    const r = await http(strict, 'POST', '/v1/verify/sessions', {
      key: acme.test_api_key,
      body: JSON.stringify({ flow_id: 'default', tier: 'T1' }),
      headers: { 'content-type': 'application/json', 'content-encoding': encoding },
    });
    expectError(r, 400, 'invalid_request');
  });

  it('still accepts a body that is gzip-encoded as it claims', async () => {
    const res = await fetch(`${strict.url}/v1/verify/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acme.test_api_key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ flow_id: 'default', tier: 'T1' })),
    });
    expect(res.status).toBe(201);
  });

  const create = (json: Record<string, unknown>) => http(strict, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1', ...json } });

  it.each([
    ['metadata', { metadata: { note: 'a\u0000b' } }],
    ['a metadata key', { metadata: { 'a\u0000b': 1 } }],
    ['reference_id', { reference_id: 'ref\u0000' }],
    ['reference_id', { reference_id: 'ref\ud800' }],
    ['flow_id', { flow_id: '\u0000' }],
    ['redirect_url', { redirect_url: 'https://example.com/\ud800' }],
  ])('refuses NUL and lone surrogates in %s', async (_field, json) => {
    expectError(await create(json), 400, 'invalid_request');
  });

  it('refuses metadata nested 5,000 deep, and metadata past its documented limits', async () => {
    // Written out by hand: JSON.stringify itself overflows the stack on 5,000 levels.
    const deep = `{"flow_id":"default","tier":"T1","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const r = await http(strict, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, body: deep, headers: { 'content-type': 'application/json' } });
    expectError(r, 400, 'invalid_request');
    expectError(await create({ metadata: { a: { b: { c: { d: { e: { f: 1 } } } } } } }), 400, 'invalid_request');
    expectError(await create({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }), 400, 'invalid_request');
    expectError(await create({ metadata: { big: 'x'.repeat(4097) } }), 400, 'invalid_request');
    expect((await create({ metadata: { a: { b: { c: { d: { e: 1 } } } }, ...Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`k${i}`, 'v'])) } })).status).toBe(201);
  });

  it('refuses NUL in webhook urls and replay event ids, and dates out of range', async () => {
    const key = acme.test_api_key;
    expectError(await http(strict, 'POST', '/v1/verify/webhooks', { key, json: { url: 'https://example.com/\u0000', events: ['verification.completed'] } }), 400, 'invalid_request');
    const ep = await http(strict, 'POST', '/v1/verify/webhooks', { key: acme.live_api_key, json: { url: 'https://93.184.216.34/replay', events: ['verification.completed'] } });
    const replay = (json: unknown) => http(strict, 'POST', `/v1/developer/webhooks/${ep.body.id}/replay`, { key: acme.live_api_key, json });
    expectError(await replay({ event_ids: ['evt_\u0000'] }), 400, 'invalid_request');
    expectError(await replay({ since: '-100000-01-01T00:00:00Z' }), 400, 'invalid_request');
    expectError(await replay({ since: '+200000-01-01T00:00:00Z' }), 400, 'invalid_request');
    expect((await replay({ since: '2020-01-01T00:00:00Z' })).status).toBe(202);
  });

  it.each([
    ['sessions(referenceId)', 'query($v: String) { sessions(first: 1, referenceId: $v) { edges { cursor } } }'],
    ['sessions(after)', 'query($v: String) { sessions(first: 1, after: $v) { edges { cursor } } }'],
    ['webhookAttempts(eventId)', 'query($v: ID) { webhookAttempts(eventId: $v) { id } }'],
    ['revokeApiKey(id)', 'mutation($v: ID!) { revokeApiKey(id: $v) }'],
    ['session(id)', 'query($v: ID!) { session(id: $v) { id } }'],
  ])('refuses NUL and lone surrogates in GraphQL %s', async (_what, query) => {
    for (const v of ['x\u0000y', '\udc00x']) {
      const r = await graphql(strict, query, { v }, acme.test_api_key);
      expect(r.status).toBeLessThan(500);
      expect(r.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['invalid_request']);
    }
  });

  it('refuses NUL in setRateLimitOverride(tenantId) for the operator too', async () => {
    const res = await fetch(`${strict.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-admin-key': ADMIN_API_KEY },
      body: JSON.stringify({ query: 'mutation($t: ID!) { setRateLimitOverride(tenantId: $t, bucket: "default", limit: 5) { limit } }', variables: { t: 'ten_\u0000' } }),
    });
    const body = await res.json();
    // The field is nullable: GraphQL answers 200 with the error beside `data: { setRateLimitOverride: null }`.
    expect(res.status).toBeLessThan(500);
    expect(body.errors[0].extensions.code).toBe('invalid_request');
    expect(body.errors[0].message).toMatch(/tenantId/);
  });
});

describe('kept-alive connections', () => {
  it('announces 65 s and still answers on a connection left idle past node\'s 5 s default', async () => {
    // A client whose process stalled a few seconds wrote its next request on a connection the server had
    // just closed (EPIPE, "other side closed"); the proof run of issue 47 lost a 25 MiB bulk import so.
    const agent = new nodeHttp.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; keepAlive: string | undefined; reused: boolean }>((resolve, reject) => {
        const req = nodeHttp.get(`${strict.url}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, keepAlive: res.headers['keep-alive'] as string | undefined, reused: req.reusedSocket }));
        });
        req.on('error', reject);
      });
    try {
      expect(await get()).toEqual({ status: 200, keepAlive: 'timeout=65', reused: false });
      await new Promise((r) => setTimeout(r, 6_000));
      expect(await get()).toEqual({ status: 200, keepAlive: 'timeout=65', reused: true });
    } finally {
      agent.destroy();
    }
  });
});

describe('GraphQL variable coercion errors (finding 8)', () => {
  it.each([
    ['a date', 'mutation($s: DateTimeISO) { replayWebhookEvents(id: "whk_0000000000000000", input: { since: $s }) { queued } }', { s: 'not a date' }],
    ['a JSON object', 'mutation($m: JSONObject) { createSession(input: { flowId: "default", tier: T1, metadata: $m }) { id } }', { m: 'x' }],
    ['an out-of-range date', 'mutation($s: DateTimeISO) { replayWebhookEvents(id: "whk_0000000000000000", input: { since: $s }) { queued } }', { s: '-100000-01-01T00:00:00Z' }],
  ])('answers a variable that is not %s with invalid_request, and logs no error', async (_what, query, variables) => {
    const before = errorLines(await logsSoFar()).length;
    const r = await graphql(strict, query, variables, acme.test_api_key);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('invalid_request');
    expect(errorLines(await logsThrough(strict, r.headers.get('request-id')!))).toHaveLength(before);
  });
});

describe('GraphQL operation names', () => {
  it.each([
    ['an empty operationName', { query: 'mutation { createApiKey { scopes } }', operationName: '' }],
    ['an operationName naming no operation', { query: 'query A { __typename }', operationName: 'B' }],
    ['no operationName with several operations', { query: 'query A { __typename } query B { __typename }' }],
  ])('answers %s with 400 invalid_request and runs nothing', async (_what, payload) => {
    const before = errorLines(await logsSoFar()).length;
    const r = await http(strict, 'POST', '/graphql', { key: acme.test_api_key, json: payload });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['invalid_request']);
    expect(r.body.data).toBeUndefined();
    expect(errorLines(await logsThrough(strict, r.headers.get('request-id')!))).toHaveLength(before);
  });
});

describe('GraphiQL (finding 9)', () => {
  it('is served compressed, cacheable by its content hash, and counted per client address in default', async () => {
    const get = (headers: Record<string, string> = {}) => fetch(`${strict.url}/graphql`, { headers: { accept: 'text/html', 'accept-encoding': 'gzip', ...headers } });
    const first = await get();
    await first.arrayBuffer();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-encoding')).toBe('gzip');
    expect(Number(first.headers.get('content-length'))).toBeLessThan(4 * 1024 * 1024);
    expect(first.headers.get('cache-control')).toMatch(/max-age=(\d{5,})/);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    expect(first.headers.get('ratelimit-limit')).toBe('120');
    const again = await get({ 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(Number(again.headers.get('ratelimit-remaining'))).toBeLessThan(Number(first.headers.get('ratelimit-remaining')));
  });
});

describe('logs (finding 10)', () => {
  it('never carries the data of a request that failed', async () => {
    const planted = `planted-${randomBytes(6).toString('hex')}`;
    const r = await http(strict, 'POST', '/v1/verify/sessions', {
      key: acme.test_api_key,
      json: { flow_id: 'default', tier: 'T1', reference_id: planted, metadata: { name: `${planted}-name`, bad: '\u0000' } },
    });
    expect(r.status).toBeLessThan(500);
    const gql = await graphql(strict, 'query($v: String) { sessions(first: 1, referenceId: $v) { edges { cursor } } }', { v: `${planted}\u0000` }, acme.test_api_key);
    expect(gql.status).toBeLessThan(500);
    // Query strings carry data too (a GET operation's variables, the hosted page's token): the access line keeps the path only.
    const query = new URLSearchParams({ query: 'query($v: String) { sessions(first: 1, referenceId: $v) { edges { cursor } } }', variables: JSON.stringify({ v: `${planted}-get` }) });
    expect((await http(strict, 'GET', `/graphql?${query}`, { key: acme.test_api_key, headers: { accept: 'application/json' } })).status).toBe(200);
    expect((await http(strict, 'GET', `/hosted/vses_0000000000000000000000aa?token=${planted}-token`)).status).toBe(404);
    const last = await graphql(strict, 'mutation($m: JSONObject) { createSession(input: { flowId: "default", tier: T1, metadata: $m }) { id } }', { m: `${planted}-variable` }, acme.test_api_key);
    expect(last.status).toBe(400);
    expect(await logsThrough(strict, last.headers.get('request-id')!)).not.toContain(planted);
  });
});

describe('HTML pages (finding 12)', () => {
  const expectPageHeaders = (h: Headers) => {
    const csp = h.get('content-security-policy');
    expect(csp).toMatch(/frame-ancestors 'none'/);
    // Only this origin's scripts, connections and forms (the hosted page starts from 'none', the error pages from 'self').
    expect(csp).toMatch(/default-src '(self|none)'/);
    for (const directive of ['script-src', 'connect-src', 'form-action']) expect(csp).toMatch(new RegExp(`${directive} 'self'(;|$)`));
    expect(h.get('x-frame-options')).toBe('DENY');
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('referrer-policy')).toBe('no-referrer');
  };

  it('sends framing, sniffing, referrer and source restrictions with the hosted page', async () => {
    const created = await http(strict, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
    const hosted = new URL(created.body.hosted_url as string);
    const page = await http(strict, 'GET', `${hosted.pathname}${hosted.search}`);
    expect(page.status).toBe(200);
    expectPageHeaders(page.headers);
    expect((await http(strict, 'GET', '/hosted/vses_0000000000000000000000aa?token=x')).status).toBe(404);
  });

  it('sends them with the error pages', async () => {
    const page = await http(strict, 'GET', '/errors/rate_limited');
    expect(page.status).toBe(200);
    expectPageHeaders(page.headers);
  });
});

describe('listening address (HOST)', () => {
  // Every 127/8 address reaches this machine's loopback interface, so 127.0.0.2 stands for "another interface".
  const answersOn = async (host: string, port: number) =>
    fetch(`http://${host}:${port}/healthz`).then(
      (r) => r.status,
      (err: Error) => String((err.cause as { code?: string } | undefined)?.code ?? err.message),
    );

  it('listens on every interface by default, and only on the HOST it is given', async () => {
    expect(await answersOn('127.0.0.2', dev.port)).toBe(200);
    expect(await answersOn('127.0.0.1', strict.port)).toBe(200);
    expect(await answersOn('127.0.0.2', strict.port)).toBe('ECONNREFUSED');
  });
});

describe('webhook targets at delivery (finding 1)', () => {
  // Last in this file: it restarts `dev`. The check at every attempt is what stops a name that resolved to a public
  // address at registration and to an internal one later; here the same endpoint meets a server that no longer allows it.
  it('refuses an attempt whose target is no longer allowed, and stores no answer from it', async () => {
    const t = await createTenant(dev, 'recheck');
    receiver.on('/recheck', () => ({ status: 200, body: 'internal answer' }));
    const ep = await http(dev, 'POST', '/v1/verify/webhooks', { key: t.test_api_key, json: { url: receiver.url('/recheck'), events: ['verification.completed', 'verification.failed'] } });
    expect(ep.status).toBe(201);
    await dev.stop();
    dev = await startServer({ ...dev.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    expect((await http(dev, 'POST', '/v1/verify/sessions', { key: t.test_api_key, json: { flow_id: 'default', tier: 'T1' } })).status).toBe(201);
    const attempts = await eventually(async () => {
      const r = await graphql(dev, `{ webhookAttempts(endpointId: "${ep.body.id}") { succeeded statusCode error responseBody } }`, {}, t.test_api_key);
      return r.body.data?.webhookAttempts?.length ? (r.body.data.webhookAttempts as { succeeded: boolean; statusCode: number | null; error: string; responseBody: string | null }[]) : undefined;
    }, 60_000);
    expect(attempts[0]).toMatchObject({ succeeded: false, statusCode: null });
    expect(attempts[0].error).toMatch(/not allowed/);
    expect(attempts[0].responseBody ?? '').not.toContain('internal answer');
    expect(receiver.at('/recheck')).toHaveLength(0);
  });
});
