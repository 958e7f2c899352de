import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { auditServer } from 'graphql-http';
import { createTenant, graphql, http, ROOT, startServer, Tenant, TestServer } from '../helpers/test-server';

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

const CREATE = `mutation($input: CreateSessionInput!) { createSession(input: $input) { id status tier referenceId hostedUrl clientSecret livemode } }`;

async function createSession(key: string, input: Record<string, unknown>) {
  const r = await graphql(server, CREATE, { input: { flowId: 'default', tier: 'T1', ...input } }, key);
  expect(r.body.errors).toBeUndefined();
  return r.body.data.createSession;
}

describe('GraphQL sessions', () => {
  it('creates a session whose camelCase fields match the REST definition shape', async () => {
    const s = await createSession(acme.test_api_key, { tier: 'T2', referenceId: 'user-1' });
    expect(s).toMatchObject({ status: 'CREATED', tier: 'T2', referenceId: 'user-1', livemode: false });
    expect(s.clientSecret).toMatch(/_secret_/);
    const rest = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.test_api_key });
    expect(rest.body).toMatchObject({ id: s.id, tier: 'T2', reference_id: 'user-1' }); // its hosted_url on reads: test/e2e/hosted-link-reads.test.ts
    const read = await graphql(server, '{ s: session(id: "' + s.id + '") { id clientSecret } }', {}, acme.test_api_key);
    expect(read.body.data.s).toEqual({ id: s.id, clientSecret: null });
  });

  it('pages through sessions newest first with cursors, filtered by status and reference', async () => {
    const tenant = await createTenant(server, 'pager');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createSession(tenant.test_api_key, { referenceId: i % 2 ? 'odd' : 'even' })).id);
    const page = (after?: string) =>
      graphql(server, 'query($after: String) { sessions(first: 2, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }', { after }, tenant.test_api_key);
    const seen: string[] = [];
    let after: string | undefined;
    for (let guard = 0; guard < 5; guard++) {
      const r = (await page(after)).body.data.sessions;
      seen.push(...r.edges.map((e: { node: { id: string } }) => e.node.id));
      if (!r.pageInfo.hasNextPage) break;
      after = r.pageInfo.endCursor;
    }
    expect(seen).toEqual([...ids].reverse());
    const odd = await graphql(server, '{ sessions(first: 10, referenceId: "odd", status: CREATED) { edges { node { id } } } }', {}, tenant.test_api_key);
    expect(odd.body.data.sessions.edges.map((e: { node: { id: string } }) => e.node.id).sort()).toEqual([ids[1], ids[3]].sort());
    const bad = await graphql(server, '{ sessions(first: 1000) { edges { cursor } } }', {}, tenant.test_api_key);
    expect(bad.body.errors[0].extensions.code).toBe('invalid_request');
  });

  it('cancels a session (WITHDRAWN) once; cancelling again is invalid_state', async () => {
    const s = await createSession(acme.test_api_key, {});
    const cancel = `mutation($id: ID!) { cancelSession(id: $id) { id status } }`;
    const first = await graphql(server, cancel, { id: s.id }, acme.test_api_key);
    expect(first.body.data.cancelSession.status).toBe('WITHDRAWN');
    const second = await graphql(server, cancel, { id: s.id }, acme.test_api_key);
    expect(second.body.errors[0].extensions.code).toBe('invalid_state');
    const foreign = await graphql(server, cancel, { id: s.id }, other.test_api_key);
    expect(foreign.body.errors[0].extensions.code).toBe('not_found');
  });

  it('returns null for another tenant\'s session and not_found codes, never its data', async () => {
    const s = await createSession(acme.live_api_key, { referenceId: 'acme-secret-ref' });
    const r = await graphql(server, `{ session(id: "${s.id}") { id } }`, {}, other.live_api_key);
    expect(r.body.data.session).toBeNull();
    // Exactly what a session that does not exist gives: nothing tells the other tenant it is there.
    const missing = await graphql(server, `{ session(id: "vses_0000000000000000000000aa") { id } }`, {}, other.live_api_key);
    expect(r.body).toEqual(missing.body);
    const review = await graphql(server, `mutation { reviewSession(id: "${s.id}", input: { decision: APPROVE, reason: "not mine" }) { id referenceId } }`, {}, other.live_api_key);
    const cancel = await graphql(server, `mutation { cancelSession(id: "${s.id}") { id referenceId } }`, {}, other.live_api_key);
    for (const denied of [review, cancel]) {
      expect(denied.body.data).toBeNull();
      expect(denied.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['not_found']);
      expect(JSON.stringify(denied.body)).not.toContain('acme-secret-ref');
    }
    const own = await graphql(server, `{ session(id: "${s.id}") { status referenceId } }`, {}, acme.live_api_key);
    expect(own.body.data.session).toEqual({ status: 'CREATED', referenceId: 'acme-secret-ref' });
  });

  it('needs the sessions:review scope for reviewSession', async () => {
    const s = await createSession(acme.test_api_key, {});
    const issued = await graphql(server, 'mutation { createApiKey(scopes: ["sessions:read"]) { id key scopes livemode } }', {}, acme.test_api_key);
    const readOnly = issued.body.data.createApiKey;
    expect(readOnly).toMatchObject({ scopes: ['sessions:read'], livemode: false });
    const r = await graphql(server, `mutation { reviewSession(id: "${s.id}", input: { decision: APPROVE, reason: "looks right" }) { id } }`, {}, readOnly.key);
    expect(r.body.errors[0].extensions.code).toBe('insufficient_scope');
    const write = await graphql(server, CREATE, { input: { flowId: 'default', tier: 'T1' } }, readOnly.key);
    expect(write.body.errors[0].extensions.code).toBe('insufficient_scope');
  });

  it('refuses a revoked key at once', async () => {
    const issued = (await graphql(server, 'mutation { createApiKey { id key } }', {}, acme.test_api_key)).body.data.createApiKey;
    expect((await graphql(server, '{ sessions(first: 1) { edges { cursor } } }', {}, issued.key)).status).toBe(200);
    const revoked = await graphql(server, `mutation { revokeApiKey(id: "${issued.id}") }`, {}, acme.test_api_key);
    expect(revoked.body.data.revokeApiKey).toBe(true);
    const after = await graphql(server, '{ sessions(first: 1) { edges { cursor } } }', {}, issued.key);
    expect(after.status).toBe(401);
    expect(after.body.errors[0].extensions.code).toBe('unauthorized');
  });

  it('answers 401 for an invalid key and an unauthorized error for an anonymous query', async () => {
    const invalid = await graphql(server, '{ __typename }', {}, 'sk_test_' + 'x'.repeat(40));
    expect(invalid.status).toBe(401);
    const anonymous = await graphql(server, '{ sessions(first: 1) { edges { cursor } } }');
    expect(anonymous.body.errors[0].extensions.code).toBe('unauthorized');
  });

  it('refuses a subscription sent over HTTP with a 400 that points to the WebSocket', async () => {
    const r = await graphql(server, 'subscription { sessionStatusChanged { id status } }', {}, acme.test_api_key);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('invalid_request');
    expect(r.body.errors[0].message).toContain('WebSocket');
  });

  it('refuses bad input with invalid_request and changes nothing', async () => {
    const badTier = await graphql(server, CREATE, { input: { flowId: 'default', tier: 'T9' } }, acme.test_api_key);
    expect(badTier.body.errors[0].extensions.code).toBe('invalid_request');
    const t6 = await graphql(server, CREATE, { input: { flowId: 'default', tier: 'T6' } }, acme.test_api_key);
    expect(t6.body.errors[0].extensions.code).toBe('tier_not_available');
    const url = await graphql(server, CREATE, { input: { flowId: 'default', tier: 'T1', redirectUrl: 'nope' } }, acme.test_api_key);
    expect(url.body.errors[0].extensions.code).toBe('invalid_request');
    const syntax = await graphql(server, '{ session(id: ', {}, acme.test_api_key);
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors[0].extensions.code).toBe('invalid_request');
  });
});

describe('GraphQL protections', () => {
  it('refuses operations past the alias and token limits with a 400 and a clear message', async () => {
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: session(id: "vses_AAAAAAAAAAAAAAAAAAAAAAAA") { id }`).join(' ');
    const r = await graphql(server, `{ ${aliases} }`, {}, acme.test_api_key);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toMatch(/alias/i);
    const huge = await graphql(server, `{ ${'__typename '.repeat(2500)} }`, {}, acme.test_api_key);
    expect(huge.status).toBe(400);
    expect(huge.body.errors[0].message).toMatch(/2000 tokens/);
  });

  it('serves GraphiQL to browsers with no external script or style', async () => {
    const r = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain('graphiql');
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toMatch(/<link[^>]+href="https?:/);
  });

  it('passes the graphql-http server audit with no MUST failure', async () => {
    const results = await auditServer({ url: `${server.url}/graphql` });
    const mustFailures = results.filter((r) => r.name.startsWith('MUST') && r.status !== 'ok');
    expect(mustFailures.map((r) => `${r.name}: ${'reason' in r ? r.reason : ''}`)).toEqual([]);
  });
});

describe('schema/schema.graphql', () => {
  it('matches the schema the code builds', async () => {
    const committed = fs.readFileSync(path.join(ROOT, 'schema', 'schema.graphql'), 'utf8');
    const emitted = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [path.join(ROOT, 'dist', 'app', 'schema-emit.js')], (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    expect(committed).toBe(emitted);
  });
});
