import { openPage, pageCall } from '../helpers/hosted-client';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { createOidcTenant, startOidcServer, testEmail, userAccessToken, type OidcTenant } from '../helpers/oidc-login';
import { eventually, http, type TestServer } from '../helpers/test-server';

/**
 * docs/decisions.md D21 (docs/hosted-flow.md, "The hosted URL"): while a session is created or in_progress,
 * a tenant key's read (one session, the list, GraphQL) carries a working hosted URL, so a tenant that
 * kept only the id can send the link again; once the session has moved on it is null, and a
 * client_secret or a user token never gets one.
 */
let server: TestServer;
let tenant: OidcTenant;

beforeAll(async () => {
  server = await startOidcServer({ RATE_LIMIT_ENABLED: 'false' });
  tenant = await createOidcTenant(server, 'Relink Shop');
});
afterAll(async () => {
  await server?.stop();
});

type Created = { id: string; hosted_url: string; client_secret: string };
const create = async (key: string, json: Record<string, unknown> = {}): Promise<Created> => {
  const r = await http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T1', ...json } });
  expect(r.status).toBe(201);
  return r.body as Created;
};
const read = (id: string, key: string) => http(server, 'GET', `/v1/verify/sessions/${id}`, { key });
const listed = async (id: string, key: string) => {
  const r = await http(server, 'GET', '/v1/verify/sessions?limit=100', { key });
  expect(r.status).toBe(200);
  return (r.body.data as { id: string; hosted_url: string | null }[]).find((s) => s.id === id);
};
const gql = (query: string, key: string, variables: Record<string, unknown> = {}) => http(server, 'POST', '/graphql', { key, json: { query, variables } });
const gqlOne = async (id: string, key: string) => (await gql(`query($id: ID!) { session(id: $id) { id status hostedUrl } }`, key, { id })).body;
const gqlListed = async (id: string, key: string) => {
  const r = await gql(`{ sessions(first: 100) { edges { node { id hostedUrl } } } }`, key);
  expect(r.body.errors).toBeUndefined();
  return (r.body.data.sessions.edges as { node: { id: string; hostedUrl: string | null } }[]).map((e) => e.node).find((n) => n.id === id);
};
/** The page a link opens, fetched from the test server whatever base URL the link names. */
const openLink = (link: string) => {
  const u = new URL(link);
  return fetch(`${server.url}${u.pathname}${u.search}`);
};
const linkPattern = (id: string) => new RegExp(`/hosted/${id}\\?token=[A-Za-z0-9_-]+$`);

describe('the hosted URL on reads (D21)', () => {
  it('a tenant key reads a working hosted URL while the session is created: one session, the list, GraphQL one and list', async () => {
    const s = await create(tenant.live_api_key); // a live session stays created until its page is opened
    const one = await read(s.id, tenant.live_api_key);
    expect(one.status).toBe(200);
    expect(one.body.status).toBe('created');
    expect(one.body.hosted_url).toMatch(linkPattern(s.id));
    expectToMatchContract('GET', '/v1/verify/sessions/{id}', one);
    expect((await listed(s.id, tenant.live_api_key))?.hosted_url).toMatch(linkPattern(s.id));
    expect(await gqlOne(s.id, tenant.live_api_key)).toEqual({ data: { session: { id: s.id, status: 'CREATED', hostedUrl: expect.stringMatching(linkPattern(s.id)) } } });
    expect((await gqlListed(s.id, tenant.live_api_key))?.hostedUrl).toMatch(linkPattern(s.id));

    // The link read back works: the page loads, and its token opens a page credential.
    const page = await openLink(one.body.hosted_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(s.id);
    const credential = await openPage(server, { id: s.id, hosted_url: one.body.hosted_url });
    expect((await pageCall(server, credential, 'GET', '')).status).toBe(200);
    // The link of the create answer still works too: each keeps its own lifetime.
    expect((await openLink(s.hosted_url)).status).toBe(200);
  });

  it('still carries it while the session is in_progress, and a list read of it opens the page', async () => {
    const s = await create(tenant.live_api_key);
    expect((await openLink(s.hosted_url)).status).toBe(200); // opening a live session's page starts it
    const one = await read(s.id, tenant.live_api_key);
    expect(one.body.status).toBe('in_progress');
    expect(one.body.hosted_url).toMatch(linkPattern(s.id));
    const fromList = (await listed(s.id, tenant.live_api_key))!.hosted_url!;
    expect(fromList).toMatch(linkPattern(s.id));
    expect((await openLink(fromList)).status).toBe(200);
    expect((await gqlOne(s.id, tenant.live_api_key)).data.session).toMatchObject({ status: 'IN_PROGRESS', hostedUrl: expect.stringMatching(linkPattern(s.id)) });
  });

  it('is null once the session has moved on: after its outcome, and after a cancel', async () => {
    const decided = await create(tenant.test_api_key);
    const done = await eventually(async () => {
      const r = await read(decided.id, tenant.test_api_key);
      return r.body.status === 'success' ? r : undefined;
    }, 60_000);
    expect(done.body.hosted_url).toBeNull();
    expectToMatchContract('GET', '/v1/verify/sessions/{id}', done);
    expect((await listed(decided.id, tenant.test_api_key))?.hosted_url).toBeNull();
    expect((await gqlOne(decided.id, tenant.test_api_key)).data.session).toMatchObject({ status: 'SUCCESS', hostedUrl: null });
    expect((await gqlListed(decided.id, tenant.test_api_key))?.hostedUrl).toBeNull();

    const cancelled = await create(tenant.live_api_key);
    const c = await http(server, 'POST', `/v1/verify/sessions/${cancelled.id}/cancel`, { key: tenant.live_api_key });
    expect([c.status, c.body.status, c.body.hosted_url]).toEqual([200, 'withdrawn', null]);
    expect((await read(cancelled.id, tenant.live_api_key)).body.hosted_url).toBeNull();
  });

  it('is never given to a client_secret or a user token', async () => {
    const s = await create(tenant.live_api_key);
    const bySecret = await read(s.id, s.client_secret);
    expect([bySecret.status, bySecret.body.status, bySecret.body.hosted_url]).toEqual([200, 'created', null]);
    expect(await gqlOne(s.id, s.client_secret)).toEqual({ data: { session: { id: s.id, status: 'CREATED', hostedUrl: null } } });

    const user = await userAccessToken(server, tenant, testEmail('relink'), { create: true });
    const byUser = await read(s.id, user);
    expect(byUser.status).toBeGreaterThanOrEqual(400);
    expect(byUser.text).not.toContain('/hosted/');
    const gqlByUser = await gql(`query($id: ID!) { session(id: $id) { id hostedUrl } }`, user, { id: s.id });
    expect(gqlByUser.text).not.toContain('/hosted/');
    const mine = await http(server, 'GET', '/v1/me/verifications', { key: user });
    expect(mine.text).not.toContain('/hosted/');
  });
});
