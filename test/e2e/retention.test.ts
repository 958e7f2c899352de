import type { Client } from 'pg';
import { dbClient, openPage, pngBytes, upload } from '../helpers/hosted-client';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { cli, createTenant, graphql, http, startServer, Tenant, TestServer } from '../helpers/test-server';

let server: TestServer;
let acme: Tenant;
let other: Tenant;
let db: Client;

beforeAll(async () => {
  server = await startServer();
  [acme, other] = await Promise.all([createTenant(server, 'acme'), createTenant(server, 'other')]);
  db = await dbClient(server);
});
afterAll(async () => {
  await db?.end();
  await server?.stop();
});

const path = (t: Tenant) => `/v1/developer/tenants/${t.tenant_id}/retention`;
const TEMPLATE = '/v1/developer/tenants/{tenant_id}/retention';

async function patch(json: unknown, key = acme.test_api_key, tenant = acme) {
  const r = await http(server, 'PATCH', path(tenant), { key, json });
  expectToMatchContract('PATCH', TEMPLATE, r);
  return r;
}

describe('tenant retention over REST', () => {
  it('starts at the spec defaults, with test and live mode apart', async () => {
    const r = await http(server, 'GET', path(acme), { key: acme.live_api_key });
    expectToMatchContract('GET', TEMPLATE, r);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ tenant_id: acme.tenant_id, livemode: true, biometric_template_days: 30, selfie_image_days: 30, selfie_video_days: 7, id_document_years: 7, updated_at: null });
  });

  it.each([
    ['biometric_template_days', 0, 365],
    ['selfie_image_days', 0, 90],
    ['selfie_video_days', 0, 30],
    ['id_document_years', 1, 10],
  ])('accepts %s at its minimum %d and maximum %d, and refuses one beyond each, naming the field', async (field, min, max) => {
    for (const ok of [min, max]) {
      const r = await patch({ [field]: ok });
      expect(r.status).toBe(200);
      expect(r.body[field]).toBe(ok);
    }
    for (const bad of [min - 1, max + 1]) {
      const r = await patch({ [field]: bad });
      expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 400, code: 'invalid_request' });
      expect(r.body.error.message).toMatch(new RegExp(`^${field}:`));
      expect(r.body.error.request_id).toMatch(/^req_/);
    }
  });

  it.each([
    ['a float', { selfie_image_days: 1.5 }, 'selfie_image_days'],
    ['a string', { selfie_video_days: '3' }, 'selfie_video_days'],
    ['null', { id_document_years: null }, 'id_document_years'],
    ['an unknown field', { fingerprint_days: 1 }, 'fingerprint_days'],
    ['a known field beside an unknown one', { selfie_image_days: 3, voice_days: 1 }, 'voice_days'],
  ])('refuses %s with a 400 naming the field, and changes nothing', async (_what, body, field) => {
    const before = (await http(server, 'GET', path(acme), { key: acme.test_api_key })).body;
    const r = await patch(body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.message).toMatch(new RegExp(`^${field}:`));
    expect((await http(server, 'GET', path(acme), { key: acme.test_api_key })).body).toEqual(before);
  });

  it('refuses an empty body and a body that is not an object', async () => {
    for (const body of [{}, [], 'x']) expect((await patch(body)).status).toBe(400);
  });

  it('takes a partial update, keeps the other fields, and leaves the other mode alone', async () => {
    await patch({ biometric_template_days: 30, selfie_image_days: 30, selfie_video_days: 7, id_document_years: 7 });
    const r = await patch({ selfie_image_days: 5 });
    expect(r.body).toMatchObject({ biometric_template_days: 30, selfie_image_days: 5, selfie_video_days: 7, id_document_years: 7, livemode: false });
    expect(r.body.updated_at).toEqual(expect.any(String));
    const live = await http(server, 'GET', path(acme), { key: acme.live_api_key });
    expect(live.body.selfie_image_days).toBe(30);
  });

  it("answers 404 for another tenant's id, on read and on change, and changes nothing there", async () => {
    const read = await http(server, 'GET', path(other), { key: acme.test_api_key });
    expectToMatchContract('GET', TEMPLATE, read);
    expect({ status: read.status, code: read.body.error.code }).toEqual({ status: 404, code: 'not_found' });
    const write = await patch({ selfie_image_days: 1 }, acme.test_api_key, other);
    expect(write.status).toBe(404);
    expect((await http(server, 'GET', path(other), { key: other.test_api_key })).body.selfie_image_days).toBe(30);
  });

  it("answers 404 for another tenant's id whatever the body: an oversized or malformed one is never read", async () => {
    const bodies = [JSON.stringify({ selfie_image_days: 'x'.repeat(2 * 1024 * 1024) }), '{"selfie_image_days":', JSON.stringify({ selfie_image_days: 'a\u0000' })];
    for (const body of bodies) {
      const r = await http(server, 'PATCH', path(other), { key: acme.test_api_key, body, headers: { 'content-type': 'application/json' } });
      expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 404, code: 'not_found' });
    }
    // The same bodies on the key's own tenant are the client's faults, as always.
    const own = await http(server, 'PATCH', path(acme), { key: acme.test_api_key, body: bodies[0], headers: { 'content-type': 'application/json' } });
    expect({ status: own.status, code: own.body?.error?.code }).toEqual({ status: 413, code: 'payload_too_large' });
  });

  it('writes each change to the tenant audit log with old and new values', async () => {
    await patch({ selfie_video_days: 3 });
    const r = await graphql(server, '{ auditLog(action: "retention.updated", first: 1) { action subjectId detail sequence hash prevHash } }', {}, acme.test_api_key);
    expect(r.body.data.auditLog[0]).toMatchObject({ action: 'retention.updated', subjectId: acme.tenant_id, detail: { changes: { selfie_video_days: { from: 7, to: 3 } } } });
    expect(r.body.data.auditLog[0].hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('tenant retention over GraphQL', () => {
  it('reads and updates the same record, refusing a value out of range by name', async () => {
    const q = await graphql(server, 'query($t: ID!) { retention(tenantId: $t) { tenantId livemode biometricTemplateDays } }', { t: other.tenant_id }, other.live_api_key);
    expect(q.body.data.retention).toEqual({ tenantId: other.tenant_id, livemode: true, biometricTemplateDays: 30 });
    const m = await graphql(server, 'mutation($t: ID!) { updateRetention(tenantId: $t, input: { biometricTemplateDays: 0 }) { biometricTemplateDays } }', { t: other.tenant_id }, other.live_api_key);
    expect(m.body.data.updateRetention.biometricTemplateDays).toBe(0);
    const bad = await graphql(server, 'mutation($t: ID!) { updateRetention(tenantId: $t, input: { selfieImageDays: 91 }) { selfieImageDays } }', { t: other.tenant_id }, other.live_api_key);
    expect(bad.body.errors[0].extensions.code).toBe('invalid_request');
    expect(bad.body.errors[0].message).toMatch(/^selfie_image_days:/);
    const foreign = await graphql(server, 'query($t: ID!) { retention(tenantId: $t) { tenantId } }', { t: acme.tenant_id }, other.live_api_key);
    expect(foreign.body.errors[0].extensions.code).toBe('not_found');
  });
});

describe('the retention scope (issue 40, finding 12)', () => {
  async function keyWith(scope: string): Promise<string> {
    const r = await cli(server.env, ['key', 'create', '--tenant', acme.tenant_id, '--mode', 'test', '--scopes', scope, '--json']);
    expect(r.code).toBe(0);
    return String(r.json!.api_key);
  }
  const readQ = 'query($t: ID!) { retention(tenantId: $t) { selfieVideoDays } }';
  const setQ = 'mutation($t: ID!) { updateRetention(tenantId: $t, input: { selfieVideoDays: 5 }) { selfieVideoDays } }';
  const runsQ = '{ retentionRuns(first: 1) { id } }';

  it('lets a key with only retention:manage read and set retention, on REST and GraphQL', async () => {
    const key = await keyWith('retention:manage');
    const read = await http(server, 'GET', path(acme), { key });
    expect(read.status).toBe(200);
    const set = await patch({ selfie_video_days: 6 }, key);
    expect({ status: set.status, days: set.body.selfie_video_days }).toEqual({ status: 200, days: 6 });
    const q = await graphql(server, readQ, { t: acme.tenant_id }, key);
    expect(q.body.errors).toBeUndefined();
    const m = await graphql(server, setQ, { t: acme.tenant_id }, key);
    expect(m.body.data.updateRetention).toEqual({ selfieVideoDays: 5 });
    expect((await graphql(server, runsQ, {}, key)).body.errors).toBeUndefined();
  });

  it.each(['webhooks:manage', 'keys:manage'])('refuses a key with only %s: 403 insufficient_scope on REST and GraphQL, nothing changed', async (scope) => {
    const key = await keyWith(scope);
    const before = (await http(server, 'GET', path(acme), { key: acme.test_api_key })).body;
    const read = await http(server, 'GET', path(acme), { key });
    expect({ status: read.status, code: read.body.error.code }).toEqual({ status: 403, code: 'insufficient_scope' });
    const set = await patch({ selfie_video_days: 1 }, key);
    expect({ status: set.status, code: set.body.error.code }).toEqual({ status: 403, code: 'insufficient_scope' });
    for (const [q, v] of [[readQ, { t: acme.tenant_id }], [setQ, { t: acme.tenant_id }], [runsQ, {}]] as const) {
      const r = await graphql(server, q, v, key);
      expect(r.body.errors[0].extensions.code).toBe('insufficient_scope');
    }
    expect((await http(server, 'GET', path(acme), { key: acme.test_api_key })).body).toEqual(before);
  });
});

describe('stored artifacts take the policy in force', () => {
  it('sets retain_until from the tenant policy when the artifact is stored', async () => {
    const t = await createTenant(server, 'policy');
    await http(server, 'PATCH', path(t), { key: t.live_api_key, json: { selfie_image_days: 2, id_document_years: 3 } });
    const s = (await http(server, 'POST', '/v1/verify/sessions', { key: t.live_api_key, json: { flow_id: 'default', tier: 'T1' } })).body;
    const page = await openPage(server, s);
    await http(server, 'POST', `/v1/hosted/sessions/${s.id}/start`, { headers: { authorization: `Bearer ${page.credential}` } });
    expect((await upload(server, page, { class: 'id_document_image', side: 'data_page' }, pngBytes(), 'image/png')).status).toBe(201);
    const rows = await db.query(`SELECT class, retain_until = stored_at + interval '3 years' AS three_years FROM artifacts WHERE session_id = $1`, [s.id]);
    expect(rows.rows).toEqual([{ class: 'id_document_image', three_years: true }]);
  });
});

describe('regulated tenants extend one session', () => {
  it('refuses a tenant that is not regulated with 403 not_regulated, then allows it once the operator sets the flag, audited without the reason', async () => {
    const t = await createTenant(server, 'bank');
    const s = (await http(server, 'POST', '/v1/verify/sessions', { key: t.live_api_key, json: { flow_id: 'default', tier: 'T1' } })).body;
    const url = `/v1/verify/sessions/${s.id}/retention`;
    const refused = await http(server, 'POST', url, { key: t.live_api_key, json: { id_document_years: 10, reason: 'AML file 2026-17' } });
    expectToMatchContract('POST', '/v1/verify/sessions/{id}/retention', refused);
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 403, code: 'not_regulated' });

    const flag = await cli(server.env, ['tenant', 'set-regulated', '--tenant', t.tenant_id, '--json']);
    expect(flag.json).toEqual({ tenant_id: t.tenant_id, regulated: true });
    for (const [body, field] of [
      [{ id_document_years: 11, reason: 'x' }, 'id_document_years'],
      [{ id_document_years: 2.5, reason: 'x' }, 'id_document_years'],
      [{ id_document_years: 5 }, 'reason'],
      [{ id_document_years: 5, reason: 'x', extra: 1 }, 'extra'],
    ] as const) {
      const r = await http(server, 'POST', url, { key: t.live_api_key, json: body });
      expect({ status: r.status, field: r.body.error.message.split(':')[0] }).toEqual({ status: 400, field });
    }
    const ok = await http(server, 'POST', url, { key: t.live_api_key, json: { id_document_years: 10, reason: 'AML file 2026-17' } });
    expectToMatchContract('POST', '/v1/verify/sessions/{id}/retention', ok);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ session_id: s.id, id_document_years: 10, artifacts: 0 });
    const audit = await db.query(`SELECT detail FROM audit_log WHERE subject_id = $1 AND action = 'retention.extended'`, [s.id]);
    expect(audit.rows[0].detail.reason_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(audit.rows[0].detail)).not.toContain('AML file');
    const foreign = await http(server, 'POST', url, { key: acme.live_api_key, json: { id_document_years: 10, reason: 'x' } });
    expect(foreign.status).toBe(404);
  });
});
