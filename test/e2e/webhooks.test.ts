import { execFileSync } from 'node:child_process';
import { verifyServiceSignature } from '../../src/index';
import { createTenant, eventually, graphql, http, startServer, Tenant, TestServer, testEnv } from '../helpers/test-server';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { onReceipt, Received, WebhookReceiver } from '../helpers/webhook-receiver';

// Short, test-only delays: the first retry within 60 ms instead of a minute. Attempts time out after 6 s: with 2 s,
// a CI machine loaded by three test files and PostgreSQL let a 204 or 410 from this process's receiver arrive late,
// logged as a timeout and retried (stop 61's CI); the hanging receiver holds its first answer well past it.
const TIMEOUT_SECONDS = 6;
const ENV = { WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS) };


let server: TestServer;
let receiver: WebhookReceiver;
const tenants: Record<string, Tenant> = {};
const secrets: Record<string, string> = {};
const endpointIds: Record<string, string> = {};
const SCENARIOS = ['ok', 'fail', 'hang', 'gone', 'retryAfter', 'big', 'redirect', 'other'] as const;
type Scenario = (typeof SCENARIOS)[number];

const register = (key: string, json: unknown) => http(server, 'POST', '/v1/verify/webhooks', { key, json });
const createSession = (key: string, metadata: Record<string, unknown> = {}) =>
  http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T2', reference_id: 'user-9', metadata } });
const header = (r: Received, name: string) => r.headers[name.toLowerCase()] as string;
const gql = (key: string, query: string, variables: Record<string, unknown> = {}) => graphql(server, query, variables, key);

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  server = await startServer(testEnv(ENV));
  const made = await Promise.all(SCENARIOS.map((s) => createTenant(server, `whk-${s}`)));
  SCENARIOS.forEach((s, i) => (tenants[s] = made[i]));

  receiver.on('/fail', (n) => (n <= 2 ? { status: 500, body: 'boom' } : { status: 204 }));
  receiver.on('/hang', (n) => (n === 1 ? { status: 200, delayMs: TIMEOUT_SECONDS * 1000 + 3_000 } : { status: 200 }));
  receiver.on('/gone', () => ({ status: 410 }));
  receiver.on('/retryAfter', (n) => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }));
  receiver.on('/big', (n) => (n === 1 ? { status: 500, body: 'x'.repeat(5_000) } : { status: 200 }));
  receiver.on('/redirect', () => ({ status: 302, headers: { location: '/ok-target' } }));

  // One endpoint and one session per scenario; every session completes 10 s after creation.
  await Promise.all(
    SCENARIOS.filter((x) => x !== 'other').map(async (s) => {
      const r = await register(tenants[s].test_api_key, { url: receiver.url(`/${s}`), events: ['verification.completed', 'verification.failed'] });
      expect(r.status).toBe(201);
      secrets[s] = r.body.signing_secret;
      endpointIds[s] = r.body.id;
      const created = await createSession(tenants[s].test_api_key);
      expect(created.status).toBe(201);
    }),
  );
});

afterAll(async () => {
  if (process.env.WHK_DEBUG) console.log(server.logs.filter((l) => /webhook|job|error/i.test(l)).join('\n'));
  await server?.stop();
  await receiver?.close();
});

const firstDelivery = (s: Scenario, count = 1) =>
  eventually(async () => (receiver.at(`/${s}`).length >= count ? receiver.at(`/${s}`) : undefined), 60_000, 100);

describe('registration', () => {
  it('returns the endpoint with its signing secret once, and never again', async () => {
    const r = await register(tenants.other.test_api_key, { url: 'https://hooks.example.com/identity', events: ['verification.completed'] });
    expect(r.status).toBe(201);
    expectToMatchContract('POST', '/v1/verify/webhooks', r);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^whk_[A-Za-z0-9]{24}$/),
      url: 'https://hooks.example.com/identity',
      events: ['verification.completed'],
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9]{32}$/),
      created_at: expect.any(String),
      livemode: false,
    });
    const listed = await gql(tenants.other.test_api_key, '{ webhookEndpoints { id url events status } }');
    expect(listed.body.data.webhookEndpoints).toEqual([{ id: r.body.id, url: 'https://hooks.example.com/identity', events: ['verification.completed'], status: 'enabled' }]);
    expect(listed.text).not.toContain(r.body.signing_secret);
    const field = await gql(tenants.other.test_api_key, '{ webhookEndpoints { signingSecret } }');
    expect(field.body.errors[0].message).toMatch(/signingSecret/);
  });

  it('refuses empty or unknown event names and malformed URLs', async () => {
    const key = tenants.other.test_api_key;
    for (const json of [
      { url: 'https://hooks.example.com/x', events: [] },
      { url: 'https://hooks.example.com/x', events: ['session.status_changed'] },
      { url: 'https://hooks.example.com/x', events: ['user.deleted'] },
      { url: 'not a url', events: ['verification.completed'] },
      { url: 'ftp://hooks.example.com/x', events: ['verification.completed'] },
    ]) {
      const r = await register(key, json);
      expectToMatchContract('POST', '/v1/verify/webhooks', r);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });

  it('needs the webhooks:manage scope', async () => {
    const issued = await gql(tenants.other.test_api_key, 'mutation { createApiKey(scopes: ["sessions:read"]) { key } }');
    const r = await register(issued.body.data.createApiKey.key, { url: 'https://hooks.example.com/x', events: ['verification.completed'] });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_scope');
  });
});

describe('SSRF protection', () => {
  // The suite's server lets webhooks reach this machine (WEBHOOK_ALLOW_PRIVATE_TARGETS=true, as on a
  // developer's laptop) so its receiver on 127.0.0.1 gets deliveries; these refusals are checked on a
  // server with the hosted-deployment default.
  let strict: TestServer;
  let strictTenant: Tenant;
  beforeAll(async () => {
    strict = await startServer(testEnv({ ...ENV, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }));
    strictTenant = await createTenant(strict, 'whk-strict');
  });
  afterAll(async () => {
    await strict?.stop();
  });

  it.each([
    ['http (not https)', 'http://hooks.example.com/x'],
    ['loopback', 'https://127.0.0.1/x'],
    ['localhost by name', 'https://localhost/x'],
    ['IPv6 loopback', 'https://[::1]/x'],
    ['private 10/8', 'https://10.1.2.3/x'],
    ['private 192.168/16', 'https://192.168.0.10/x'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/x'],
    ['link-local metadata', 'https://169.254.169.254/latest/meta-data'],
  ])('refuses a live-mode URL that is %s', async (_what, url) => {
    const r = await http(strict, 'POST', '/v1/verify/webhooks', { key: strictTenant.live_api_key, json: { url, events: ['verification.completed'] } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  it('refuses the metadata address even in test mode, but allows http to localhost there when the operator allows private targets', async () => {
    const meta = await register(tenants.other.test_api_key, { url: 'http://169.254.169.254/latest/meta-data', events: ['verification.completed'] });
    expect(meta.status).toBe(400);
    const local = await register(tenants.other.test_api_key, { url: 'http://localhost:9/hook', events: ['verification.completed'] });
    expect(local.status).toBe(201);
  });
});

describe('delivery', () => {
  it('POSTs the documented envelope, signed so that Python hmac, openssl and verifyServiceSignature all agree', async () => {
    const [got] = await firstDelivery('ok');
    const event = JSON.parse(got.body);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[A-Za-z0-9]{24}$/),
      type: 'verification.completed',
      created_at: expect.any(String),
      livemode: false,
      data: {
        session_id: expect.stringMatching(/^vses_/),
        reference: 'user-9',
        tier: 'T2',
        requested_tier: 'T2',
        status: 'success',
        decision: 'approved',
        badges: ['photo', 'liveness'],
        confidence: expect.any(Number),
        completed_at: expect.any(String),
      },
    });
    expect(header(got, 'content-type')).toBe('application/json');
    expect(header(got, 'service-event-id')).toBe(event.id);
    expect(header(got, 'service-webhook-attempt')).toBe('1');
    const sigHeader = header(got, 'service-signature');
    const m = /^v1,t=(\d+),sig=([0-9a-f]{64})$/.exec(sigHeader)!;
    expect(m).not.toBeNull();
    // Signed when it was sent: after the event was written, before it arrived (no tolerance a loaded machine could exceed).
    expect(Number(m[1])).toBeGreaterThanOrEqual(Math.floor(Date.parse(event.created_at) / 1000));
    expect(Number(m[1])).toBeLessThanOrEqual(got.at / 1000);

    const py = execFileSync('python3', ['-c', 'import hmac,hashlib,sys; d=sys.stdin.buffer.read(); print(hmac.new(sys.argv[1].encode(), sys.argv[2].encode()+b"."+d, hashlib.sha256).hexdigest())', secrets.ok, m[1]], {
      input: got.body,
    }).toString().trim();
    expect(py).toBe(m[2]);
    const ssl = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secrets.ok], { input: `${m[1]}.${got.body}` }).toString().trim();
    expect(ssl.split('= ')[1]).toBe(m[2]);

    expect(verifyServiceSignature(got.body, sigHeader, secrets.ok, onReceipt(got))).toBe(true);
    expect(verifyServiceSignature(got.body.replace('"approved"', '"declined"'), sigHeader, secrets.ok)).toBe(false);
    expect(verifyServiceSignature(JSON.stringify(JSON.parse(got.body), null, 2), sigHeader, secrets.ok)).toBe(false); // re-serialised body
    expect(verifyServiceSignature(got.body, sigHeader, secrets.fail)).toBe(false);
    expect(verifyServiceSignature(got.body, sigHeader, secrets.ok, { nowSeconds: Number(m[1]) + 301 })).toBe(false);
    expect(verifyServiceSignature(got.body, sigHeader, secrets.ok, { nowSeconds: Number(m[1]) + 299 })).toBe(true);
  });

  it('retries after a 500 with the same Service-Event-Id and logs every attempt', async () => {
    const got = await firstDelivery('fail', 3);
    expect(got.map((g) => header(g, 'service-event-id'))).toEqual(Array(3).fill(header(got[0], 'service-event-id')));
    expect(got.map((g) => header(g, 'service-webhook-attempt'))).toEqual(['1', '2', '3']);
    for (const g of got) expect(verifyServiceSignature(g.body, header(g, 'service-signature'), secrets.fail, onReceipt(g))).toBe(true);

    const q = `query($e: ID, $v: ID) { webhookAttempts(endpointId: $e, eventId: $v) { attempt statusCode succeeded error responseBody nextRetryAt durationMs eventId } }`;
    const log = await eventually(async () => {
      const r = await gql(tenants.fail.test_api_key, q, { e: endpointIds.fail });
      return r.body.data.webhookAttempts.length === 3 ? r.body.data.webhookAttempts : undefined;
    });
    expect(log.map((a: { attempt: number }) => a.attempt)).toEqual([3, 2, 1]);
    expect(log[2]).toMatchObject({ statusCode: 500, succeeded: false, error: 'HTTP 500', responseBody: 'boom', nextRetryAt: expect.any(String) });
    expect(log[0]).toMatchObject({ statusCode: 204, succeeded: true, error: null, nextRetryAt: null });
    const byEvent = await gql(tenants.fail.test_api_key, q, { v: header(got[0], 'service-event-id') });
    expect(byEvent.body.data.webhookAttempts).toHaveLength(3);
    // Another tenant sees nothing of it.
    const foreign = await gql(tenants.ok.test_api_key, q, { v: header(got[0], 'service-event-id') });
    expect(foreign.body.data.webhookAttempts).toEqual([]);
    const foreignEndpoint = await gql(tenants.ok.test_api_key, q, { e: endpointIds.fail });
    expect(foreignEndpoint.body.errors[0].extensions.code).toBe('not_found');
  });

  it('retries after a timeout with the same Service-Event-Id', async () => {
    const got = await firstDelivery('hang', 2);
    expect(header(got[1], 'service-event-id')).toBe(header(got[0], 'service-event-id'));
    expect(header(got[1], 'service-webhook-attempt')).toBe('2');
    const r = await gql(tenants.hang.test_api_key, `query($e: ID) { webhookAttempts(endpointId: $e) { attempt statusCode error } }`, { e: endpointIds.hang });
    expect(r.body.data.webhookAttempts.at(-1)).toEqual({ attempt: 1, statusCode: null, error: `timed out after ${TIMEOUT_SECONDS * 1000} ms` });
  });

  it('waits at least as long as a Retry-After header asks', async () => {
    const got = await firstDelivery('retryAfter', 2);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(1_900);
  });

  it('truncates a large receiver response in the log', async () => {
    await firstDelivery('big', 2);
    const r = await eventually(async () => {
      const q = await gql(tenants.big.test_api_key, `query($e: ID) { webhookAttempts(endpointId: $e) { attempt responseBody } }`, { e: endpointIds.big });
      return q.body.data.webhookAttempts.length === 2 ? q.body.data.webhookAttempts : undefined;
    });
    expect(r[1].responseBody).toHaveLength(1024);
  });

  it('does not follow redirects', async () => {
    await firstDelivery('redirect', 2);
    expect(receiver.at('/ok-target')).toHaveLength(0);
    const q = await gql(tenants.redirect.test_api_key, `query($e: ID) { webhookAttempts(endpointId: $e) { statusCode error } }`, { e: endpointIds.redirect });
    expect(q.body.data.webhookAttempts.at(-1)).toEqual({ statusCode: 302, error: 'HTTP 302 (redirects are not followed)' });
  });

  it('disables the endpoint on 410 Gone and says so in the audit log', async () => {
    await firstDelivery('gone');
    const state = await eventually(async () => {
      const r = await gql(tenants.gone.test_api_key, '{ webhookEndpoints { id status disabledReason } auditLog { action subjectId detail } }');
      return r.body.data.webhookEndpoints[0].status === 'disabled' ? r.body.data : undefined;
    });
    expect(state.webhookEndpoints[0]).toEqual({ id: endpointIds.gone, status: 'disabled', disabledReason: 'receiver_gone' });
    expect(state.auditLog[0]).toMatchObject({ action: 'webhook_endpoint.disabled', subjectId: endpointIds.gone, detail: { reason: 'receiver_gone' } });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at('/gone')).toHaveLength(1); // no retries after 410
  });
});

describe('replay and rotation', () => {
  it('replays by event id and by time window, signed afresh, and 404s for another tenant', async () => {
    const [first] = await firstDelivery('ok');
    const eventId = header(first, 'service-event-id');
    const before = receiver.at('/ok').length;
    const byId = await http(server, 'POST', `/v1/developer/webhooks/${endpointIds.ok}/replay`, { key: tenants.ok.test_api_key, json: { event_ids: [eventId] } });
    expect(byId.status).toBe(202);
    expectToMatchContract('POST', '/v1/developer/webhooks/{id}/replay', byId);
    expect(byId.body).toEqual({ queued: 1 });
    const again = (await firstDelivery('ok', before + 1))[before];
    expect(header(again, 'service-event-id')).toBe(eventId);
    expect(again.body).toBe(first.body);
    expect(verifyServiceSignature(again.body, header(again, 'service-signature'), secrets.ok, onReceipt(again))).toBe(true);

    const since = new Date(Date.now() - 3_600_000).toISOString();
    const byWindow = await http(server, 'POST', `/v1/developer/webhooks/${endpointIds.ok}/replay`, {
      key: tenants.ok.test_api_key,
      json: { since, until: new Date().toISOString() },
    });
    expect(byWindow).toMatchObject({ status: 202, body: { queued: 1 } });
    await firstDelivery('ok', before + 2);

    const foreign = await http(server, 'POST', `/v1/developer/webhooks/${endpointIds.ok}/replay`, { key: tenants.fail.test_api_key, json: { event_ids: [eventId] } });
    expect(foreign.status).toBe(404);
    expectToMatchContract('POST', '/v1/developer/webhooks/{id}/replay', foreign);
    expect(foreign.body.error.code).toBe('not_found');
    const bad = await http(server, 'POST', `/v1/developer/webhooks/${endpointIds.ok}/replay`, { key: tenants.ok.test_api_key, json: {} });
    expect(bad.status).toBe(400);
    expectToMatchContract('POST', '/v1/developer/webhooks/{id}/replay', bad);
  });

  it('signs with both secrets during a rotation overlap, then only with the new one', async () => {
    const [first] = await firstDelivery('ok');
    const eventId = header(first, 'service-event-id');
    const rotate = `mutation($id: ID!, $o: Int) { rotateWebhookSecret(id: $id, input: { overlapSeconds: $o }) { signingSecret previousSecretExpiresAt } }`;
    const rotated = await gql(tenants.ok.test_api_key, rotate, { id: endpointIds.ok, o: 3600 });
    const newSecret = rotated.body.data.rotateWebhookSecret.signingSecret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secrets.ok);

    const replay = () => http(server, 'POST', `/v1/developer/webhooks/${endpointIds.ok}/replay`, { key: tenants.ok.test_api_key, json: { event_ids: [eventId] } });
    let count = receiver.at('/ok').length;
    await replay();
    const overlapped = (await firstDelivery('ok', count + 1))[count];
    const sig = header(overlapped, 'service-signature');
    expect(sig).toMatch(/^v1,t=\d+,sig=[0-9a-f]{64},sig=[0-9a-f]{64}$/);
    expect(verifyServiceSignature(overlapped.body, sig, newSecret, onReceipt(overlapped))).toBe(true);
    expect(verifyServiceSignature(overlapped.body, sig, secrets.ok, onReceipt(overlapped))).toBe(true);

    const ended = await gql(tenants.ok.test_api_key, rotate, { id: endpointIds.ok, o: 0 });
    const newest = ended.body.data.rotateWebhookSecret.signingSecret as string;
    count = receiver.at('/ok').length;
    await replay();
    const single = (await firstDelivery('ok', count + 1))[count];
    expect(header(single, 'service-signature')).toMatch(/^v1,t=\d+,sig=[0-9a-f]{64}$/);
    expect(verifyServiceSignature(single.body, header(single, 'service-signature'), newest, onReceipt(single))).toBe(true);
    expect(verifyServiceSignature(single.body, header(single, 'service-signature'), newSecret)).toBe(false);
  });

  it('stops delivering to a disabled or deleted endpoint', async () => {
    const key = tenants.other.test_api_key;
    const r = await register(key, { url: receiver.url('/other'), events: ['verification.failed'] });
    const disabled = await gql(key, 'mutation($id: ID!) { disableWebhookEndpoint(id: $id) { status disabledReason } }', { id: r.body.id });
    expect(disabled.body.data.disableWebhookEndpoint).toEqual({ status: 'disabled', disabledReason: 'disabled_by_tenant' });
    const deleted = await gql(key, 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id: r.body.id });
    expect(deleted.body.data.deleteWebhookEndpoint).toBe(true);
    const listed = await gql(key, '{ webhookEndpoints { id } }');
    expect(listed.body.data.webhookEndpoints.map((e: { id: string }) => e.id)).not.toContain(r.body.id);
    const replay = await http(server, 'POST', `/v1/developer/webhooks/${r.body.id}/replay`, { key, json: { since: new Date(0).toISOString() } });
    expect(replay.status).toBe(404);
  });
});
