import { dbClient } from '../helpers/hosted-client';
import { createTenant, eventually, graphql, http, startServer, Tenant, TestServer } from '../helpers/test-server';

let server: TestServer;
let acme: Tenant;
let other: Tenant;

beforeAll(async () => {
  server = await startServer();
  [acme, other] = await Promise.all([createTenant(server, 'acme'), createTenant(server, 'other')]);
});
afterAll(async () => {
  await server?.stop();
});

const create = (key: string, json: unknown) => http(server, 'POST', '/v1/verify/sessions', { key, json });

async function sessionCount(key: string): Promise<number> {
  const r = await graphql(server, '{ sessions(first: 100) { edges { node { id status } } } }', {}, key);
  return r.body.data.sessions.edges.length;
}

describe('POST /v1/verify/sessions', () => {
  it('creates a test-mode session in the definition shape with a client_secret shown once', async () => {
    const r = await create(acme.test_api_key, { flow_id: 'default', tier: 'T2', reference_id: 'user-42', metadata: { plan: 'gold' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'created', tier: 'T2', reference_id: 'user-42', livemode: false, result: null, completed_at: null, locale: 'en-US' });
    expect(r.body.id).toMatch(/^vses_[A-Za-z0-9]{24}$/);
    expect(r.body.hosted_url).toMatch(new RegExp(`/hosted/${r.body.id}\\?token=`));
    expect(r.body.client_secret).toMatch(new RegExp(`^${r.body.id}_secret_`));
    expect(new Date(r.body.expires_at).getTime() - new Date(r.body.created_at).getTime()).toBe(24 * 3600 * 1000);
    const read = await http(server, 'GET', `/v1/verify/sessions/${r.body.id}`, { key: acme.test_api_key });
    expect(read.status).toBe(200);
    expect(read.body.client_secret).toBeUndefined();
    expect(read.body.metadata).toEqual({ plan: 'gold' });
  });

  it('accepts the quickstart shape, taking the highest of tiers and reference as reference_id', async () => {
    const r = await create(acme.test_api_key, { tiers: ['T1', 'T3', 'T2'], reference: 'ref-7', redirect_url: 'https://acme.example/done' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tier: 'T3', reference_id: 'ref-7', redirect_url: 'https://acme.example/done' });
  });

  it('creates live sessions with live keys, invisible to the test key', async () => {
    const r = await create(acme.live_api_key, { flow_id: 'default', tier: 'T1' });
    expect(r.status).toBe(201);
    expect(r.body.livemode).toBe(true);
    const asTest = await http(server, 'GET', `/v1/verify/sessions/${r.body.id}`, { key: acme.test_api_key });
    expect(asTest.status).toBe(404);
    expect(asTest.body.error.code).toBe('not_found');
  });
});

describe('test mode', () => {
  it('walks created -> in_progress -> processing -> success, deciding 10 s after creation', async () => {
    const created = await create(acme.test_api_key, { flow_id: 'default', tier: 'T5' });
    const id = created.body.id as string;
    const createdAt = new Date(created.body.created_at).getTime();
    const done = await eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key });
      return r.body.status === 'success' ? r.body : undefined;
    }, 60_000, 200);
    // The walk as the server recorded it (one session.status_changed per step), not as a poll happened to see it: on a
    // loaded machine the steps' jobs may run late and close together, and a poll can miss one that lasted a moment.
    const db = await dbClient(server);
    try {
      const steps = await db.query(`SELECT payload->>'status' AS status FROM outbox_events WHERE session_id = $1 AND type = 'session.status_changed' ORDER BY seq`, [id]);
      expect(steps.rows.map((r: { status: string }) => r.status)).toEqual(['created', 'in_progress', 'processing', 'success']);
      // Each step is due at its time after creation (2, 5 and 10 s: the schedule is the product's, when a loaded
      // machine's worker gets to it is not), and the decision is never earlier than its 10 s.
      const schema = server.env.JOB_SCHEMA ?? 'pgboss';
      const jobs = await db.query(`SELECT data->>'step' AS step, start_after FROM ${schema}.job WHERE name = 'test-mode-advance' AND data->>'sessionId' = $1 ORDER BY start_after`, [id]);
      expect(jobs.rows.map((j: { step: string; start_after: Date }) => [j.step, new Date(j.start_after).getTime() - createdAt])).toEqual([
        ['in_progress', 2_000],
        ['processing', 5_000],
        ['terminal', 10_000],
      ]);
    } finally {
      await db.end();
    }
    expect(new Date(done.completed_at).getTime() - createdAt).toBeGreaterThanOrEqual(10_000);
    expect(done.result).toMatchObject({ decision: 'approved', achieved_tier: 'T5', badges: ['photo', 'liveness', 'chip'] });
    const chipCheck = done.result.checks.find((c: { name: string }) => c.name === 'chip_passive_authentication');
    expect(chipCheck).toEqual({ name: 'chip_passive_authentication', status: 'pass', score: 1, reason: 'Document is genuine and unmodified per ICAO 9303 Passive Authentication.' });
    expect(done.result.chip).toMatchObject({ test_mode: true, statement: 'Document is genuine and unmodified per ICAO 9303 Passive Authentication.' });
  });

  it('resolves declined and review outcomes deterministically, and the manual-review override decides', async () => {
    const [declined, review] = await Promise.all([
      create(acme.test_api_key, { flow_id: 'default', tier: 'T2', metadata: { test_outcome: 'declined' } }),
      create(acme.test_api_key, { flow_id: 'default', tier: 'T3', metadata: { test_outcome: 'review' } }),
    ]);
    const final = (id: string, status: string) =>
      eventually(async () => {
        const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key });
        return r.body.status === status ? r.body : undefined;
      });
    const [d, rv] = await Promise.all([final(declined.body.id, 'failed'), final(review.body.id, 'manual_review')]);
    expect(d.result).toMatchObject({ decision: 'declined', achieved_tier: 'T0', badges: [] });
    expect(rv.result).toMatchObject({ decision: 'review', sanctions_hits: [] });
    expect(rv.completed_at).not.toBeNull();

    const tooShort = await http(server, 'POST', `/v1/verify/manual-review/${rv.id}`, { key: acme.test_api_key, json: { decision: 'approve', reason: 'ok' } });
    expect(tooShort.status).toBe(400);
    const wrongDecision = await http(server, 'POST', `/v1/verify/manual-review/${rv.id}`, { key: acme.test_api_key, json: { decision: 'maybe', reason: 'looks fine' } });
    expect(wrongDecision.status).toBe(400);
    const notInReview = await http(server, 'POST', `/v1/verify/manual-review/${d.id}`, { key: acme.test_api_key, json: { decision: 'approve', reason: 'documents ok' } });
    expect(notInReview.status).toBe(409);
    expect(notInReview.body.error.code).toBe('invalid_state');
    const otherTenant = await http(server, 'POST', `/v1/verify/manual-review/${rv.id}`, { key: other.test_api_key, json: { decision: 'approve', reason: 'documents ok' } });
    expect(otherTenant.status).toBe(404);

    const approved = await http(server, 'POST', `/v1/verify/manual-review/${rv.id}`, {
      key: acme.test_api_key,
      json: { decision: 'approve', reason: 'Passport checked by hand', reviewer_id: 'rev-1' },
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'success', result: { decision: 'approved', achieved_tier: 'T3', badges: ['photo', 'liveness', 'sanctions_clear'] } });
    const again = await http(server, 'POST', `/v1/verify/manual-review/${rv.id}`, { key: acme.test_api_key, json: { decision: 'reject', reason: 'changed my mind' } });
    expect(again.status).toBe(409);

    // The override is in the tenant's audit log once (the refused second one is not), with hashes instead of the reviewer's text.
    const audit = await graphql(server, 'query($s: ID) { auditLog(action: "session.reviewed", subjectId: $s) { action subjectId detail } }', { s: rv.id }, acme.test_api_key);
    expect(audit.body.data.auditLog).toEqual([
      { action: 'session.reviewed', subjectId: rv.id, detail: expect.objectContaining({ decision: 'approve', reason_sha256: expect.stringMatching(/^[0-9a-f]{64}$/), reviewer_id_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }) },
    ]);
    expect(JSON.stringify(audit.body.data.auditLog)).not.toContain('Passport checked by hand');
    const elsewhere = await graphql(server, 'query($s: ID) { auditLog(action: "session.reviewed", subjectId: $s) { action } }', { s: rv.id }, other.test_api_key);
    expect(elsewhere.body.data.auditLog).toEqual([]);
  });
});

describe('bad input', () => {
  const cases: [string, unknown, number, string][] = [
    ['a missing tier', { flow_id: 'default' }, 400, 'invalid_request'],
    ['a missing flow_id in the definition shape', { tier: 'T1' }, 400, 'invalid_request'],
    ['an unknown field', { flow_id: 'default', tier: 'T1', colour: 'red' }, 400, 'invalid_request'],
    ['a tier of the wrong type', { flow_id: 'default', tier: 2 }, 400, 'invalid_request'],
    ['a tier outside T0..T6', { flow_id: 'default', tier: 'T7' }, 400, 'invalid_request'],
    ['tier T6', { flow_id: 'default', tier: 'T6' }, 400, 'tier_not_available'],
    ['a non-URI redirect_url', { flow_id: 'default', tier: 'T1', redirect_url: 'not a url' }, 400, 'invalid_request'],
    ['an unknown flow_id', { flow_id: 'flow_doesnotexist0000000000', tier: 'T1' }, 400, 'invalid_request'],
    ['metadata that is not an object', { flow_id: 'default', tier: 'T1', metadata: [1, 2] }, 400, 'invalid_request'],
    ['metadata that is a string', { flow_id: 'default', tier: 'T1', metadata: 'x' }, 400, 'invalid_request'],
    ['an unknown test_outcome', { flow_id: 'default', tier: 'T1', metadata: { test_outcome: 'maybe' } }, 400, 'invalid_request'],
    ['tier contradicting tiers', { tier: 'T1', tiers: ['T2'] }, 400, 'invalid_request'],
    ['reference contradicting reference_id', { tiers: ['T1'], reference: 'a', reference_id: 'b' }, 400, 'invalid_request'],
    ['an empty tiers array', { tiers: [] }, 400, 'invalid_request'],
    ['a body that is an array', [1], 400, 'invalid_request'],
  ];

  it.each(cases)('refuses %s with a stable code and stores nothing', async (_name, body, status, code) => {
    const before = await sessionCount(other.test_api_key);
    const r = await create(other.test_api_key, body);
    expect(r.status).toBe(status);
    expect(r.body.error).toMatchObject({ code, request_id: r.headers.get('request-id') });
    expect(typeof r.body.error.message).toBe('string');
    expect(await sessionCount(other.test_api_key)).toBe(before);
  });

  it('refuses malformed JSON with 400, a wrong content type with 415 and a 2 MiB body with 413', async () => {
    const before = await sessionCount(other.test_api_key);
    const malformed = await http(server, 'POST', '/v1/verify/sessions', { key: other.test_api_key, body: '{"tier": "T1",', headers: { 'content-type': 'application/json' } });
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'invalid_request']);
    const wrongType = await http(server, 'POST', '/v1/verify/sessions', { key: other.test_api_key, body: 'tier=T1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect([wrongType.status, wrongType.body.error.code]).toEqual([415, 'unsupported_media_type']);
    const huge = JSON.stringify({ flow_id: 'default', tier: 'T1', metadata: { blob: 'x'.repeat(2 * 1024 * 1024) } });
    const tooBig = await http(server, 'POST', '/v1/verify/sessions', { key: other.test_api_key, body: huge, headers: { 'content-type': 'application/json' } });
    expect([tooBig.status, tooBig.body.error.code]).toEqual([413, 'payload_too_large']);
    expect(await sessionCount(other.test_api_key)).toBe(before);
  });

  it('answers 404 for an id outside the pattern, an unknown id and another tenant\'s session', async () => {
    const mine = await create(acme.test_api_key, { flow_id: 'default', tier: 'T1' });
    for (const id of ['not-a-session', 'vses_short', 'vses_AAAAAAAAAAAAAAAAAAAAAAAA', mine.body.id]) {
      const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: other.test_api_key });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });
});

describe('authentication', () => {
  it('answers 401 with the error body for a missing, malformed or unknown key', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer sk_test_' + 'A'.repeat(40) }];
    for (const headers of attempts) {
      const r = await http(server, 'POST', '/v1/verify/sessions', { headers, json: { flow_id: 'default', tier: 'T1' } });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
      expect(r.body.error.request_id).toBe(r.headers.get('request-id'));
    }
  });

  it('refuses a session client_secret on tenant routes and a tenant key on /v1/me', async () => {
    const s = await create(acme.test_api_key, { flow_id: 'default', tier: 'T1' });
    const asClient = await http(server, 'POST', '/v1/verify/sessions', { key: s.body.client_secret, json: { flow_id: 'default', tier: 'T1' } });
    expect(asClient.status).toBe(403);
    const me = await http(server, 'POST', '/v1/me/delete', { key: acme.test_api_key });
    expect([me.status, me.body.error.code]).toEqual([403, 'user_token_required']);
  });

  it('lets a client_secret read its own session only', async () => {
    const [a, b] = await Promise.all([
      create(acme.test_api_key, { flow_id: 'default', tier: 'T1' }),
      create(acme.test_api_key, { flow_id: 'default', tier: 'T1' }),
    ]);
    expect((await http(server, 'GET', `/v1/verify/sessions/${a.body.id}`, { key: a.body.client_secret })).status).toBe(200);
    expect((await http(server, 'GET', `/v1/verify/sessions/${b.body.id}`, { key: a.body.client_secret })).status).toBe(404);
  });
});

describe('platform routes', () => {
  it('serves /healthz and /openapi.yaml without a key, and a page per error code', async () => {
    const health = await http(server, 'GET', '/healthz');
    expect(health.body).toMatchObject({ status: 'ok', database: 'up', sanctions_lists: { un: { source: 'off' } } });
    const openapi = await http(server, 'GET', '/openapi.yaml');
    expect(openapi.status).toBe(200);
    expect(openapi.text).toContain('openapi: 3.1');
    const page = await http(server, 'GET', '/errors/invalid_state');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect((await http(server, 'GET', '/errors/nonsense')).status).toBe(404);
  });

  it('answers unknown /v1 paths with a 404 error body and a request-id on every response', async () => {
    const r = await http(server, 'GET', '/v1/nothing/here', { key: acme.test_api_key });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect(r.headers.get('request-id')).toMatch(/^req_/);
  });
});

describe('hosted page', () => {
  it('shows the flow branding and status, and opening it starts a live session', async () => {
    const s = await create(acme.live_api_key, { flow_id: 'default', tier: 'T2' });
    const page = await fetch(s.body.hosted_url.replace(/^http:\/\/localhost:\d+/, server.url));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('acme');
    const read = await http(server, 'GET', `/v1/verify/sessions/${s.body.id}`, { key: acme.live_api_key });
    expect(read.body.status).toBe('in_progress');
    const forged = await fetch(`${server.url}/hosted/${s.body.id}?token=forged`);
    expect(forged.status).toBe(404);
  });
});
