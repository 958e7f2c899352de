import { expectToMatchContract } from '../helpers/openapi-contract';
import { cli, createTenant, graphql, http, startServer, Tenant, TestServer } from '../helpers/test-server';

/**
 * Flows through the API (issue 41, item 5): what the console's Flows section does, over /v1 and
 * GraphQL, with the scope flows:manage and the values judged by the one FlowService the console uses.
 */
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

const FLOWS = '/v1/developer/flows';
const ONE = '/v1/developer/flows/{id}';
const FLOW_FIELDS = 'id name isDefault maxTier displayName logoUrl primaryColor locale redirectUrl allowedOrigins createdAt';

async function createFlow(key: string, json: unknown) {
  const r = await http(server, 'POST', FLOWS, { key, json });
  expectToMatchContract('POST', FLOWS, r);
  return r;
}

async function listIds(t: Tenant): Promise<string[]> {
  const r = await http(server, 'GET', FLOWS, { key: t.test_api_key });
  expectToMatchContract('GET', FLOWS, r);
  return r.body.data.map((f: { id: string }) => f.id);
}

describe('flows over REST', () => {
  it('creates, lists, reads and changes a flow: name, max_tier, branding and allowed_origins', async () => {
    const created = await createFlow(acme.test_api_key, { name: 'Checkout', max_tier: 'T2', primary_color: '#0b3d91', allowed_origins: ['https://shop.example/'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'flow', name: 'Checkout', is_default: false, max_tier: 'T2', primary_color: '#0b3d91', allowed_origins: ['https://shop.example'] });
    const id = created.body.id as string;

    const list = await http(server, 'GET', FLOWS, { key: acme.test_api_key });
    expect(list.status).toBe(200);
    expect(list.body.data[0].is_default).toBe(true); // the default first
    expect(list.body.data.map((f: { id: string }) => f.id)).toContain(id);

    // Flows belong to the tenant, not to a mode: the live key reads and changes the same one.
    const read = await http(server, 'GET', `${FLOWS}/${id}`, { key: acme.live_api_key });
    expectToMatchContract('GET', ONE, read);
    expect(read.body).toEqual(created.body);

    const patched = await http(server, 'PATCH', `${FLOWS}/${id}`, {
      key: acme.live_api_key,
      json: { display_name: 'Acme Checkout', logo_url: 'https://cdn.example/logo.png', locale: 'de-DE', max_tier: 'T1', allowed_origins: ['https://a.example', 'http://localhost:3000'] },
    });
    expectToMatchContract('PATCH', ONE, patched);
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, name: 'Checkout', display_name: 'Acme Checkout', logo_url: 'https://cdn.example/logo.png', locale: 'de-DE', max_tier: 'T1', allowed_origins: ['https://a.example', 'http://localhost:3000'] });
    const cleared = await http(server, 'PATCH', `${FLOWS}/${id}`, { key: acme.test_api_key, json: { logo_url: null, allowed_origins: [] } });
    expect(cleared.body).toMatchObject({ logo_url: null, allowed_origins: [] });

    // The flow shapes the sessions made with it: a tier above its max_tier is refused (D2).
    const above = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: id, tier: 'T2' } });
    expect({ status: above.status, code: above.body.error.code }).toEqual({ status: 400, code: 'invalid_request' });
    const within = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: id, tier: 'T1' } });
    expect(within.status).toBe(201);

    const byDefault = await http(server, 'GET', `${FLOWS}/default`, { key: acme.test_api_key });
    expect(byDefault.body).toMatchObject({ is_default: true, name: expect.any(String) });

    // Each change is audited with the key that made it and the fields it set, never their values.
    const audit = await graphql(server, '{ auditLog(action: "flow.updated", first: 5) { action subjectId detail } }', {}, acme.live_api_key);
    expect(audit.body.data.auditLog).toContainEqual({
      action: 'flow.updated',
      subjectId: id,
      detail: { fields: ['max_tier', 'display_name', 'logo_url', 'locale', 'allowed_origins'], key_id: expect.stringMatching(/^key_/) },
    });
    const createdEntry = await graphql(server, '{ auditLog(action: "flow.created", first: 5) { subjectId detail } }', {}, acme.test_api_key);
    expect(createdEntry.body.data.auditLog).toContainEqual({ subjectId: id, detail: { fields: ['name', 'max_tier', 'primary_color', 'allowed_origins'], key_id: expect.stringMatching(/^key_/) } });
    expect(JSON.stringify(audit.body)).not.toContain('cdn.example');
  });

  it("answers 404 for another tenant's flow, and changes nothing", async () => {
    const theirs = (await createFlow(other.test_api_key, { name: 'Theirs', display_name: 'Other Ltd' })).body;
    for (const [method, json] of [['GET', undefined], ['PATCH', { display_name: 'Taken over' }]] as const) {
      const r = await http(server, method, `${FLOWS}/${theirs.id}`, { key: acme.test_api_key, json });
      expectToMatchContract(method, ONE, r);
      expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 404, code: 'not_found' });
    }
    expect(await listIds(acme)).not.toContain(theirs.id);
    const still = await http(server, 'GET', `${FLOWS}/${theirs.id}`, { key: other.test_api_key });
    expect(still.body.display_name).toBe('Other Ltd');
    // An id of no flow's shape is the same 404; one holding a NUL is refused as every argument is (400), never a 500.
    for (const id of ['flow_nope', 'x'.repeat(300)]) {
      const r = await http(server, 'GET', `${FLOWS}/${id}`, { key: acme.test_api_key });
      expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 404, code: 'not_found' });
    }
    const nul = await http(server, 'PATCH', `${FLOWS}/flow_%00aaaaaaaaaaaaaaaaaaaa`, { key: acme.test_api_key, json: { locale: 'de-DE' } });
    expect({ status: nul.status, code: nul.body.error.code }).toEqual({ status: 400, code: 'invalid_request' });
  });

  it.each([
    ['an unknown max_tier', { max_tier: 'T9' }, /^max_tier/],
    ['T6, which is deferred', { max_tier: 'T6' }, /^max_tier/],
    ['a colour that is not hex', { primary_color: 'red' }, /^primary_color/],
    ['an origin with a path', { allowed_origins: ['https://shop.example/checkout'] }, /^allowed_origins/],
    ['an origin that is not a string', { allowed_origins: [42] }, /^allowed_origins/],
    ['more than 20 origins', { allowed_origins: Array.from({ length: 21 }, (_, i) => `https://o${i}.example`) }, /^allowed_origins/],
    ['a logo over http', { logo_url: 'http://cdn.example/logo.png' }, /^logo_url/],
    ['a redirect that is not a URL', { redirect_url: 'javascript:alert(1)' }, /^redirect_url/],
    ['a NUL in the display name', { display_name: 'Acme\u0000' }, /display_name/],
    ['an empty display name', { display_name: '  ' }, /^display_name/],
    ['a display name of 81 characters', { display_name: 'x'.repeat(81) }, /^display_name/],
    ['a number as the locale', { locale: 7 }, /^locale/],
    ['null as the name', { name: null }, /^name/],
    ['an unknown field', { colour: '#fff' }, /colour/],
  ])('refuses %s with 400 invalid_request naming the field, on create and update, storing nothing', async (_what, bad, message) => {
    const before = await listIds(acme);
    const created = await createFlow(acme.test_api_key, { name: 'Bad', ...bad });
    expect({ status: created.status, code: created.body.error.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect(created.body.error.message).toMatch(message);
    expect(await listIds(acme)).toEqual(before);

    const defaultBefore = (await http(server, 'GET', `${FLOWS}/default`, { key: acme.test_api_key })).body;
    const patched = await http(server, 'PATCH', `${FLOWS}/default`, { key: acme.test_api_key, json: bad });
    expectToMatchContract('PATCH', ONE, patched);
    expect({ status: patched.status, code: patched.body.error.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect(patched.body.error.message).toMatch(message);
    expect((await http(server, 'GET', `${FLOWS}/default`, { key: acme.test_api_key })).body).toEqual(defaultBefore);
  });

  it('refuses a create without a name, an empty change and a body that is not an object', async () => {
    const noName = await createFlow(acme.test_api_key, { display_name: 'Nameless' });
    expect({ status: noName.status, code: noName.body.error.code, message: noName.body.error.message }).toEqual({ status: 400, code: 'invalid_request', message: 'name is required' });
    const empty = await http(server, 'PATCH', `${FLOWS}/default`, { key: acme.test_api_key, json: {} });
    expect({ status: empty.status, code: empty.body.error.code }).toEqual({ status: 400, code: 'invalid_request' });
    const list = await http(server, 'POST', FLOWS, { key: acme.test_api_key, json: ['a'] });
    expect({ status: list.status, code: list.body.error.code }).toEqual({ status: 400, code: 'invalid_request' });
  });

  it('needs flows:manage: a key without it is 403 insufficient_scope on every route and operation', async () => {
    const r = await cli(server.env, ['key', 'create', '--tenant', acme.tenant_id, '--mode', 'test', '--scopes', 'sessions:write', '--json']);
    const key = String(r.json!.api_key);
    for (const [method, path, json] of [
      ['GET', FLOWS, undefined],
      ['POST', FLOWS, { name: 'No scope' }],
      ['GET', `${FLOWS}/default`, undefined],
      ['PATCH', `${FLOWS}/default`, { display_name: 'No scope' }],
    ] as const) {
      const res = await http(server, method, path, { key, json });
      expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 403, 'insufficient_scope']);
    }
    for (const q of ['{ flows { id } }', '{ flow(flowId: "default") { id } }', 'mutation { createFlow(input: { name: "x" }) { id } }', 'mutation { updateFlow(flowId: "default", input: { locale: "de-DE" }) { id } }']) {
      const res = await graphql(server, q, {}, key);
      expect([q, res.body.errors?.[0]?.extensions?.code]).toEqual([q, 'insufficient_scope']);
    }
  });
});

describe('flows over GraphQL', () => {
  it('creates, lists, reads and updates a flow with the same results and the same refusals as REST', async () => {
    const created = await graphql(server, `mutation($i: CreateFlowInput!) { createFlow(input: $i) { ${FLOW_FIELDS} } }`, { i: { name: 'Onboarding', maxTier: 'T3', allowedOrigins: ['https://app.example'] } }, acme.test_api_key);
    expect(created.body.errors).toBeUndefined();
    const flow = created.body.data.createFlow;
    expect(flow).toMatchObject({ name: 'Onboarding', isDefault: false, maxTier: 'T3', allowedOrigins: ['https://app.example'] });

    const list = await graphql(server, '{ flows { id isDefault } }', {}, acme.live_api_key);
    expect(list.body.data.flows[0].isDefault).toBe(true);
    expect(list.body.data.flows.map((f: { id: string }) => f.id)).toContain(flow.id);

    const updated = await graphql(server, 'mutation($id: ID!) { updateFlow(flowId: $id, input: { name: "Onboarding v2", primaryColor: "#123", logoUrl: null }) { name primaryColor logoUrl maxTier } }', { id: flow.id }, acme.test_api_key);
    expect(updated.body.data.updateFlow).toEqual({ name: 'Onboarding v2', primaryColor: '#123', logoUrl: null, maxTier: 'T3' });

    // The REST read sees the same record.
    const rest = await http(server, 'GET', `${FLOWS}/${flow.id}`, { key: acme.test_api_key });
    expect(rest.body).toMatchObject({ id: flow.id, name: 'Onboarding v2', primary_color: '#123', max_tier: 'T3' });

    // The same refusal, in the same words, as REST.
    const bad = await graphql(server, 'mutation { updateFlow(flowId: "default", input: { maxTier: "T9" }) { id } }', {}, acme.test_api_key);
    const badRest = await http(server, 'PATCH', `${FLOWS}/default`, { key: acme.test_api_key, json: { max_tier: 'T9' } });
    expect(bad.body.errors[0].extensions.code).toBe('invalid_request');
    expect(bad.body.errors[0].message).toBe(badRest.body.error.message);
    const nul = await graphql(server, 'mutation($n: String!) { createFlow(input: { name: $n }) { id } }', { n: 'a\u0000b' }, acme.test_api_key);
    expect(nul.body.errors[0].extensions.code).toBe('invalid_request');
  });

  it("answers not_found for another tenant's flow, and changes nothing", async () => {
    const theirs = (await createFlow(other.test_api_key, { name: 'Private', locale: 'en-US' })).body;
    const read = await graphql(server, 'query($id: ID!) { flow(flowId: $id) { id } }', { id: theirs.id }, acme.test_api_key);
    expect(read.body.errors[0].extensions.code).toBe('not_found');
    const write = await graphql(server, 'mutation($id: ID!) { updateFlow(flowId: $id, input: { locale: "de-DE" }) { id } }', { id: theirs.id }, acme.test_api_key);
    expect(write.body.errors[0].extensions.code).toBe('not_found');
    expect((await http(server, 'GET', `${FLOWS}/${theirs.id}`, { key: other.test_api_key })).body.locale).toBe('en-US');
  });
});
