import type { Client } from 'pg';
import { captureAndSubmitT1, dbClient, openPage, pageCall } from '../helpers/hosted-client';
import { createTenant, eventually, http, startServer, Tenant, testEnv, TestServer } from '../helpers/test-server';

/**
 * Issue #25 finding 4 (docs/hosted-flow.md, "The hosted URL"): the hosted URL, with every page
 * credential, stops working an hour after the session's terminal status, so a link found later
 * cannot reopen the page. Which answers carry it (D21): test/e2e/hosted-link-reads.test.ts.
 */
let server: TestServer;
let acme: Tenant;
let db: Client;

beforeAll(async () => {
  server = await startServer(testEnv({ RATE_LIMIT_ENABLED: 'false' }));
  acme = await createTenant(server, 'acme');
  db = await dbClient(server);
});
afterAll(async () => {
  await db?.end();
  await server?.stop();
});

const create = async () => {
  const r = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
  expect(r.status).toBe(201);
  return r.body as { id: string; hosted_url: string; client_secret: string };
};

describe('the hosted URL', () => {
  it('is in the create answer, REST and GraphQL (reads: test/e2e/hosted-link-reads.test.ts, D21)', async () => {
    const s = await create();
    expect(s.hosted_url).toMatch(new RegExp(`/hosted/${s.id}\\?token=`));
    const created = await http(server, 'POST', '/graphql', {
      key: acme.test_api_key,
      json: { query: `mutation { createSession(input: { flowId: "default", tier: T1 }) { id hostedUrl } }` },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createSession.hostedUrl).toMatch(/\/hosted\/vses_[A-Za-z0-9]+\?token=/);
  });

  it('and its page credentials stop working an hour after the terminal status, not before', async () => {
    const s = await create();
    const { page } = await captureAndSubmitT1(server, s);
    await eventually(async () => ((await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.test_api_key })).body.status === 'success' ? true : undefined));
    const hostedPath = new URL(s.hosted_url);
    // 59 minutes after: still open (the person may come back to the last page).
    await db.query(`UPDATE sessions SET completed_at = now() - interval '59 minutes' WHERE id = $1`, [s.id]);
    expect((await fetch(`${server.url}${hostedPath.pathname}${hostedPath.search}`)).status).toBe(200);
    const fresh = await openPage(server, s);
    expect((await pageCall(server, fresh, 'GET', '')).status).toBe(200);
    // An hour after: the URL is a 404 like a forged one, and no credential opens or works.
    await db.query(`UPDATE sessions SET completed_at = now() - interval '61 minutes' WHERE id = $1`, [s.id]);
    const page404 = await fetch(`${server.url}${hostedPath.pathname}${hostedPath.search}`);
    expect(page404.status).toBe(404);
    const reopen = await http(server, 'POST', `/v1/hosted/sessions/${s.id}/credentials`, { json: { token: hostedPath.searchParams.get('token') } });
    expect([reopen.status, reopen.body.error?.code]).toEqual([404, 'not_found']);
    for (const p of [page, fresh]) {
      const r = await pageCall(server, p, 'GET', '');
      expect([r.status, r.body.error?.code]).toEqual([401, 'unauthorized']);
    }
  });

  it('of a session withdrawn or expired ends an hour after that change', async () => {
    const s = await create();
    const page = await openPage(server, s);
    expect((await pageCall(server, page, 'POST', 'cancel')).body.status).toBe('withdrawn');
    expect((await pageCall(server, page, 'GET', '')).status).toBe(200);
    await db.query(`UPDATE sessions SET updated_at = now() - interval '61 minutes' WHERE id = $1`, [s.id]);
    expect((await pageCall(server, page, 'GET', '')).status).toBe(401);
    const reopen = await http(server, 'POST', `/v1/hosted/sessions/${s.id}/credentials`, { json: { token: new URL(s.hosted_url).searchParams.get('token') } });
    expect(reopen.status).toBe(404);
  });
});
