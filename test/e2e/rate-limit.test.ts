import { RawGraphQLWs } from '../helpers/ws-client';
import { cli, createTenant, eventually, graphql, http, HttpResult, startServer, Tenant, testEnv, TestServer } from '../helpers/test-server';

/**
 * Rate-limit buckets through a real server (Memory store, or the CI Redis when REDIS_URL is set).
 * Bursts start away from a minute boundary: the sliding window frees about limit/60 units per
 * second after one, which would make "exactly the limit" assertions timing-dependent.
 */

const ADMIN_API_KEY = 'op_admin_0123456789abcdefghijklmnopqrstuvwxyz';
let server: TestServer;
let proxied: TestServer;
let acme: Tenant;
let other: Tenant;

beforeAll(async () => {
  [server, proxied] = await Promise.all([startServer(testEnv({ ADMIN_API_KEY, PUBLIC_BASE_URL: 'https://verify.example.test' })), startServer(testEnv({ TRUST_PROXY: 'loopback' }))]);
  [acme, other] = await Promise.all([createTenant(server, 'acme'), createTenant(server, 'other')]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), proxied?.stop()]);
});

async function awayFromWindowEdge(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 54_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 200));
}

async function newKey(tenant: Tenant, mode: 'test' | 'live' = 'test'): Promise<string> {
  const r = await cli(server.env, ['key', 'create', '--tenant', tenant.tenant_id, '--mode', mode, '--json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return r.json!.api_key as string;
}

const limitOf = (r: HttpResult) => Number(r.headers.get('ratelimit-limit'));
const remainingOf = (r: HttpResult) => Number(r.headers.get('ratelimit-remaining'));
const createBody = {}; // invalid on purpose: a 400 is still metered, and creates nothing

async function burst(n: number, send: () => Promise<HttpResult>): Promise<HttpResult[]> {
  return Promise.all(Array.from({ length: n }, send));
}

describe('bucket table', () => {
  const cases: [string, string, string, number][] = [
    ['social_read', 'GET', '/v1/social/feed', 200],
    ['social_read', 'GET', '/v1/profiles/usr_1', 200],
    ['social_write', 'POST', '/v1/network/links', 60],
    ['verify_create', 'POST', '/v1/verify/sessions', 60],
    ['verify_read', 'GET', '/v1/verify/sessions/vses_0000000000000000000000aa', 600],
    ['verify_admin', 'POST', '/v1/verify/sessions/vses_0000000000000000000000aa/decisions', 30],
    ['default', 'POST', '/v1/verify/manual-review/vses_0000000000000000000000aa', 120], // the spec's table: "everything else"
    ['webhooks_replay', 'POST', '/v1/developer/webhooks/whk_0000000000000000/replay', 20],
    ['bulk_import', 'POST', '/v1/admin/bulk-import', 5],
    ['default', 'GET', '/v1/nothing/here', 120],
  ];
  let key: string;
  beforeAll(async () => {
    key = await newKey(acme); // one key for all: each case is the first request of its bucket
  });
  const used = new Map<string, number>();
  it.each(cases)('meters %s (%s %s) with its limit in ratelimit-limit', async (bucket, method, path, limit) => {
    used.set(bucket, (used.get(bucket) ?? 0) + 1);
    const r = await http(server, method, path, { key, json: method === 'GET' ? undefined : {} });
    expect(r.status).not.toBe(429);
    expect(limitOf(r)).toBe(limit);
    expect(remainingOf(r)).toBe(limit - used.get(bucket)!);
    expect(r.headers.get('ratelimit-reset')).toBe('0');
  });

  it('meters the auth buckets per OAuth client, from the form body or HTTP Basic, else per IP', async () => {
    const form = (clientId: string) => ({ body: `grant_type=client_credentials&client_id=${clientId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const a1 = await http(server, 'POST', '/v1/oidc/token', form('client-a'));
    const a2 = await http(server, 'POST', '/v1/oauth2/token', { headers: { authorization: `Basic ${Buffer.from('client-a:secret').toString('base64')}` } });
    const b1 = await http(server, 'POST', '/v1/oidc/par', form('client-b'));
    expect([limitOf(a1), remainingOf(a1)]).toEqual([300, 299]);
    expect(remainingOf(a2)).toBe(298); // same client, other endpoint of the bucket
    expect(remainingOf(b1)).toBe(299);
    const userinfo = await http(server, 'GET', '/v1/oidc/userinfo');
    expect([limitOf(userinfo), remainingOf(userinfo)]).toEqual([600, 599]);
  });

  it('puts no ratelimit headers on unmetered responses', async () => {
    const responses = await Promise.all([
      http(server, 'GET', '/healthz'),
      http(server, 'GET', '/openapi.yaml'),
      http(server, 'GET', '/errors/rate_limited'),
      http(server, 'GET', '/hosted/vses_0000000000000000000000aa?token=nope'),
    ]);
    for (const r of responses) {
      expect(r.status).toBeLessThan(500);
      expect(r.headers.get('ratelimit-limit')).toBeNull();
    }
    // GraphiQL is public but metered: per client IP in default.
    expect((await http(server, 'GET', '/graphql', { headers: { accept: 'text/html' } })).headers.get('ratelimit-limit')).toBe('120');
  });
});

describe('exhaustion', () => {
  it('answers the request past the limit with the 429 problem document, retry-after and the test-mode debug header', async () => {
    await awayFromWindowEdge();
    const key = await newKey(acme);
    const admitted = await burst(60, () => http(server, 'POST', '/v1/verify/sessions', { key, json: createBody }));
    expect(admitted.map((r) => r.status)).toEqual(Array(60).fill(400));
    const r = await http(server, 'POST', '/v1/verify/sessions', { key, json: createBody });
    expect(r.status).toBe(429);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(65);
    expect(r.body).toEqual({
      type: 'https://verify.example.test/errors/rate_limited',
      title: 'Rate limit exceeded',
      status: 429,
      detail: expect.stringContaining('verify_create'),
      bucket: 'verify_create',
      retry_after: retryAfter,
    });
    expect(r.headers.get('ratelimit-limit')).toBe('60');
    expect(r.headers.get('ratelimit-remaining')).toBe('0');
    expect(r.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    expect(r.headers.get('service-debug-bucket-state')).toBe(`bucket=verify_create, limit=60, used=60, window_s=60, reset_s=${retryAfter}`);
  });

  it('leaves the debug header off live-mode 429s', async () => {
    await awayFromWindowEdge();
    const key = await newKey(acme, 'live');
    await burst(5, () => http(server, 'POST', '/v1/admin/bulk-import', { key, json: {} }));
    const r = await http(server, 'POST', '/v1/admin/bulk-import', { key, json: {} });
    expect(r.status).toBe(429);
    expect(r.body.bucket).toBe('bulk_import');
    expect(r.headers.get('service-debug-bucket-state')).toBeNull();
  });

  it('keeps buckets and keys independent', async () => {
    await awayFromWindowEdge();
    const [key, sibling] = await Promise.all([newKey(acme), newKey(acme)]);
    await burst(5, () => http(server, 'POST', '/v1/admin/bulk-import', { key, json: {} }));
    expect((await http(server, 'POST', '/v1/admin/bulk-import', { key, json: {} })).status).toBe(429);
    const otherBucket = await http(server, 'GET', '/v1/verify/sessions/vses_0000000000000000000000aa', { key });
    expect(otherBucket.status).toBe(404);
    expect(remainingOf(otherBucket)).toBe(599);
    // Past the limiter, `{}` is not an import (no records): the route's own 400.
    const otherKey = await http(server, 'POST', '/v1/admin/bulk-import', { key: sibling, json: {} });
    expect(otherKey.status).toBe(400);
    expect(remainingOf(otherKey)).toBe(4);
    const otherTenant = await http(server, 'POST', '/v1/admin/bulk-import', { key: other.test_api_key, json: {} });
    expect(otherTenant.status).toBe(400);
  });
});

describe('who is counted before authentication', () => {
  const from = (ip: string, key: string) => ({ key, json: {}, headers: { 'x-forwarded-for': ip } });

  it('counts missing and invalid credentials per client IP, and refuses only invalid credentials from that IP', async () => {
    await awayFromWindowEdge();
    const tenant = await createTenant(proxied, 'proxied');
    const bad = 'sk_test_' + 'x'.repeat(40);
    const first = await http(proxied, 'POST', '/v1/admin/bulk-import', { json: {}, headers: { 'x-forwarded-for': '198.51.100.7' } });
    expect(first.status).toBe(401);
    expect(remainingOf(first)).toBe(4);
    const guesses = await burst(4, () => http(proxied, 'POST', '/v1/admin/bulk-import', from('198.51.100.7', bad)));
    expect(guesses.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    const blocked = await http(proxied, 'POST', '/v1/admin/bulk-import', from('198.51.100.7', bad));
    expect(blocked.status).toBe(429);
    expect(blocked.body.bucket).toBe('bulk_import');
    // Valid keys from that address are charged to themselves and never locked out by the guesser.
    expect((await http(proxied, 'POST', '/v1/admin/bulk-import', from('198.51.100.7', tenant.test_api_key))).status).toBe(400);
    expect((await http(proxied, 'POST', '/v1/admin/bulk-import', from('198.51.100.7', bad))).status).toBe(429);
    expect((await http(proxied, 'POST', '/v1/admin/bulk-import', from('203.0.113.9', tenant.test_api_key))).status).toBe(400);
    expect((await http(proxied, 'POST', '/v1/admin/bulk-import', from('203.0.113.9', bad))).status).toBe(401);
  });

  it('lets valid keys through from an address that sent 61 made-up keys to verify_create', async () => {
    await awayFromWindowEdge();
    const tenant = await createTenant(proxied, 'shared-proxy');
    const bad = 'sk_test_' + 'z'.repeat(40);
    const guesses = await burst(61, () => http(proxied, 'POST', '/v1/verify/sessions', from('198.51.100.8', bad)));
    expect(guesses.filter((r) => r.status === 429)).toHaveLength(1);
    const valid = await http(proxied, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' }, headers: { 'x-forwarded-for': '198.51.100.8' } });
    expect(valid.status).toBe(201);
    expect([limitOf(valid), remainingOf(valid)]).toEqual([60, 59]);
  });

  it('counts routes whose link is the credential (evidence, export bundles, export keys) per client address in default', async () => {
    await awayFromWindowEdge();
    const paths = ['/v1/evidence/art_0000000000000000000000aa?expires=1&sig=00', '/v1/exports/dsr_0000000000000000000000aa/bundle.zip?expires=1&sig=00', '/v1/.well-known/export-keys'];
    const answers: HttpResult[] = [];
    for (let i = 0; i < 120; i++) answers.push(await http(proxied, 'GET', paths[i % paths.length], { headers: { 'x-forwarded-for': '198.51.100.9' } }));
    expect(answers.every((r) => r.status !== 429 && limitOf(r) === 120)).toBe(true);
    expect(remainingOf(answers[119])).toBe(0);
    for (const p of paths) {
      const refused = await http(proxied, 'GET', p, { headers: { 'x-forwarded-for': '198.51.100.9' } });
      expect([refused.status, refused.body.bucket]).toEqual([429, 'default']);
    }
    // Another address has its own count.
    expect((await http(proxied, 'GET', '/v1/.well-known/export-keys', { headers: { 'x-forwarded-for': '203.0.113.10' } })).status).toBe(200);
  });

  it('ignores x-forwarded-for when no proxy is trusted', async () => {
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const r = await http(server, 'POST', '/v1/developer/webhooks/whk_0000000000000000/replay', { json: {}, headers: { 'x-forwarded-for': `192.0.2.${i}` } });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
  });
});

describe('GraphQL', () => {
  const createMutation = 'mutation { createSession(input: { flowId: "no-such-flow", tier: T1 }) { id } }';

  it('shares verify_create with REST, so mixing the two cannot pass the limit', async () => {
    await awayFromWindowEdge();
    const key = await newKey(acme);
    const rest = await burst(30, () => http(server, 'POST', '/v1/verify/sessions', { key, json: createBody }));
    const gql = await burst(30, () => graphql(server, createMutation, {}, key));
    expect([...rest, ...gql].every((r) => r.status !== 429)).toBe(true);
    const restAfter = await http(server, 'POST', '/v1/verify/sessions', { key, json: createBody });
    const gqlAfter = await graphql(server, createMutation, {}, key);
    expect(restAfter.status).toBe(429);
    expect(gqlAfter.status).toBe(429);
    expect(gqlAfter.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(gqlAfter.body).toMatchObject({ status: 429, bucket: 'verify_create', title: 'Rate limit exceeded' });
    expect(gqlAfter.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('charges an operation one unit per root field, aliases and fragments included', async () => {
    const key = await newKey(acme);
    const one = await graphql(server, '{ sessions(first: 1) { edges { cursor } } }', {}, key);
    const three = await graphql(
      server,
      '{ a: session(id: "vses_0000000000000000000000aa") { id } b: session(id: "vses_0000000000000000000000ab") { id } ...more } fragment more on Query { sessions(first: 1) { edges { cursor } } }',
      {},
      key,
    );
    expect(one.status).toBe(200);
    expect(three.status).toBe(200);
    expect([limitOf(one), remainingOf(one)]).toEqual([600, 599]);
    expect(remainingOf(three)).toBe(596);
  });

  it('charges fifteen aliased createSession as fifteen verify_create units', async () => {
    await awayFromWindowEdge();
    const key = await newKey(acme);
    const aliased = `mutation { ${Array.from({ length: 15 }, (_, i) => `c${i}: createSession(input: { flowId: "no-such-flow", tier: T1 }) { id }`).join(' ')} }`;
    const r = await graphql(server, aliased, {}, key);
    expect(r.status).toBe(200);
    expect([limitOf(r), remainingOf(r)]).toEqual([60, 45]);
    const rest = await http(server, 'POST', '/v1/verify/sessions', { key, json: createBody });
    expect(remainingOf(rest)).toBe(44);
  });

  it('meters replayWebhookEvents in webhooks_replay, shared with the REST replay', async () => {
    const key = await newKey(acme);
    const r = await graphql(server, 'mutation { replayWebhookEvents(id: "whk_0000000000000000", input: { eventIds: ["evt_1"] }) { queued } }', {}, key);
    expect([limitOf(r), remainingOf(r)]).toEqual([20, 19]);
    const rest = await http(server, 'POST', '/v1/developer/webhooks/whk_0000000000000000/replay', { key, json: { event_ids: ['evt_1'] } });
    expect([limitOf(rest), remainingOf(rest)]).toEqual([20, 18]);
  });

  it('refuses an operation whole when one of its buckets is exhausted, giving back the others', async () => {
    await awayFromWindowEdge();
    const key = await newKey(acme);
    const decide = 'mutation { decideSession(id: "vses_0000000000000000000000aa", input: { decision: APPROVE, reason: "fine" }) { decision { id } } }';
    await burst(30, () => graphql(server, decide, {}, key));
    const both = await graphql(
      server,
      'mutation { createSession(input: { flowId: "no-such-flow", tier: T1 }) { id } decideSession(id: "vses_0000000000000000000000aa", input: { decision: APPROVE, reason: "fine" }) { decision { id } } }',
      {},
      key,
    );
    expect(both.status).toBe(429);
    expect(both.body.bucket).toBe('verify_admin');
    const create = await http(server, 'POST', '/v1/verify/sessions', { key, json: createBody });
    expect(remainingOf(create)).toBe(59);
  });

  it('charges the start of a subscription to verify_read and refuses one past the limit', async () => {
    const tenant = await createTenant(server, 'subscriber');
    await cli(server.env, ['limits', 'set', '--tenant', tenant.tenant_id, '--bucket', 'verify_read', '--limit', '2', '--json']);
    const read = await http(server, 'GET', '/v1/verify/sessions/vses_0000000000000000000000aa', { key: tenant.test_api_key });
    expect([limitOf(read), remainingOf(read)]).toEqual([2, 1]);
    const { client, acked } = await RawGraphQLWs.connect(server.url, RawGraphQLWs.bearer(tenant.test_api_key));
    try {
      expect(acked).toBe(true);
      const subs = [client.subscribe('subscription { sessionStatusChanged { id status } }'), client.subscribe('subscription { sessionStatusChanged { id } }')];
      await client.waitFor(() => subs.some((s) => s.errors.length > 0), 10_000);
      const errors = subs.flatMap((s) => s.errors);
      expect(errors.map((e) => e.extensions.code)).toEqual(['rate_limited']);
      expect(client.isOpen).toBe(true);
      const after = await http(server, 'GET', '/v1/verify/sessions/vses_0000000000000000000000aa', { key: tenant.test_api_key });
      expect(after.status).toBe(429);
    } finally {
      client.close();
    }
  });

  it('counts unauthenticated GraphQL per IP with headers, and still answers 401', async () => {
    const r = await graphql(server, '{ sessions(first: 1) { edges { cursor } } }', {}, 'sk_test_' + 'y'.repeat(40));
    expect(r.status).toBe(401);
    expect(limitOf(r)).toBe(600);
  });
});

describe('per-tenant overrides', () => {
  it('applies a CLI override without a restart', async () => {
    const tenant = await createTenant(server, 'enterprise');
    const before = await http(server, 'GET', '/v1/social/feed', { key: tenant.test_api_key });
    expect(limitOf(before)).toBe(200);
    const set = await cli(server.env, ['limits', 'set', '--tenant', tenant.tenant_id, '--bucket', 'social_read', '--limit', '5000', '--json']);
    expect(set.json).toEqual({ tenant_id: tenant.tenant_id, bucket: 'social_read', limit: 5000 });
    // No restart: the next requests see it. That this takes at most a second is the override cache's lifetime,
    // proved on its own clock in src/rate-limit/rate-limit-overrides.test.ts; timed here it would measure the machine.
    await eventually(async () => (limitOf(await http(server, 'GET', '/v1/social/feed', { key: tenant.test_api_key })) === 5000 ? true : undefined), 60_000, 50);
    const live = await http(server, 'GET', '/v1/social/feed', { key: tenant.live_api_key });
    expect(limitOf(live)).toBe(5000); // per tenant, both modes
    const others = await http(server, 'GET', '/v1/social/feed', { key: other.test_api_key });
    expect(limitOf(others)).toBe(200);
    const bad = await cli(server.env, ['limits', 'set', '--tenant', tenant.tenant_id, '--bucket', 'nope', '--limit', '5', '--json']);
    expect(bad.code).toBe(1);
    expect((bad.json as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('lets only the operator credential set an override through GraphQL', async () => {
    const tenant = await createTenant(server, 'support-raise');
    const mutation = `mutation($t: ID!) { setRateLimitOverride(tenantId: $t, bucket: "verify_create", limit: 600) { tenantId bucket limit } }`;
    const asTenant = await graphql(server, mutation, { t: tenant.tenant_id }, tenant.live_api_key);
    expect(asTenant.body.errors[0].extensions.code).toBe('unauthorized');
    const wrong = await http(server, 'POST', '/graphql', { json: { query: mutation, variables: { t: tenant.tenant_id } }, headers: { 'service-admin-key': ADMIN_API_KEY.replace('op_', 'xx_') } });
    expect(wrong.body.errors[0].extensions.code).toBe('unauthorized');
    const asOperator = await http(server, 'POST', '/graphql', { json: { query: mutation, variables: { t: tenant.tenant_id } }, headers: { 'service-admin-key': ADMIN_API_KEY } });
    expect(asOperator.body.data.setRateLimitOverride).toEqual({ tenantId: tenant.tenant_id, bucket: 'verify_create', limit: 600 });
    await eventually(async () => (limitOf(await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: createBody })) === 600 ? true : undefined), 60_000, 100);
  });
});
