import { cli, createTenant, graphql, http, startServer, Tenant, testEnv, TestServer } from '../helpers/test-server';
import { RawGraphQLWs, Subscription } from '../helpers/ws-client';

/**
 * Live session status over graphql-ws at /graphql. In the embedded pass the bus is in-process; in
 * the PostgreSQL+Redis pass the same tests go through Redis fan-out.
 */

const BY_ID = `subscription ($id: ID) { sessionStatusChanged(id: $id) { id status tier completedAt livemode result { decision achievedTier } } }`;
const TENANT_WIDE = `subscription { sessionStatusChanged { id status tier completedAt livemode } }`;

let server: TestServer;
let acme: Tenant;
let other: Tenant;
const open: RawGraphQLWs[] = [];

beforeAll(async () => {
  server = await startServer(
    testEnv({ SUBSCRIPTION_MAX_PER_CONNECTION: '3', SUBSCRIPTION_MAX_CONNECTIONS_PER_KEY: '3', SUBSCRIPTION_KEEPALIVE_MS: '1000', SUBSCRIPTION_AUTH_RECHECK_MS: '500' }),
  );
  [acme, other] = await Promise.all([createTenant(server, 'acme'), createTenant(server, 'other')]);
});
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});
afterAll(async () => {
  await server?.stop();
});

async function connect(credential: string | null, target: Pick<TestServer, 'url'> = server) {
  const r = await RawGraphQLWs.connect(target.url, credential === null ? undefined : RawGraphQLWs.bearer(credential));
  open.push(r.client);
  return r;
}

async function connected(credential: string, target: Pick<TestServer, 'url'> = server): Promise<RawGraphQLWs> {
  const r = await connect(credential, target);
  if (!r.acked) throw new Error(`connection refused: ${JSON.stringify(r.close)}`);
  return r.client;
}

async function createSession(key: string, target: Pick<TestServer, 'url'> = server, metadata: Record<string, unknown> = {}) {
  const r = await http(target, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T1', metadata } });
  expect(r.status).toBe(201);
  return r.body as { id: string; client_secret: string; hosted_url: string };
}

async function cancel(key: string, id: string, target: Pick<TestServer, 'url'> = server) {
  const r = await graphql(target, 'mutation ($id: ID!) { cancelSession(id: $id) { status } }', { id }, key);
  expect(r.body.errors).toBeUndefined();
}

/** The end user opens the hosted flow: created -> in_progress. */
async function openHosted(session: { hosted_url: string }, target: Pick<TestServer, 'url'> = server) {
  const u = new URL(session.hosted_url);
  const r = await http(target, 'GET', `${u.pathname}${u.search}`);
  expect(r.status).toBe(200);
}

const statuses = (sub: Subscription) => sub.data.map((d) => d.sessionStatusChanged.status as string);
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sessionStatusChanged(id)', () => {
  it("gives a session's client_secret every status of a test-mode session in order, with the result, then completes", async () => {
    const s = await createSession(acme.test_api_key);
    const ws = await connected(s.client_secret);
    const sub = ws.subscribe(BY_ID, { id: s.id });
    await sub.waitForComplete();
    // The status at subscription first, then every later one in order. Subscribed within the 2 s before the test clock's
    // first step, that is all four; a loaded machine may take longer to connect, and then starts at the current one.
    const all = ['CREATED', 'IN_PROGRESS', 'PROCESSING', 'SUCCESS'];
    expect(statuses(sub).length).toBeGreaterThanOrEqual(2);
    expect(statuses(sub)).toEqual(all.slice(all.length - statuses(sub).length));
    const last = sub.data.at(-1).sessionStatusChanged;
    expect(last).toMatchObject({ id: s.id, tier: 'T1', livemode: false, result: { decision: 'APPROVED', achievedTier: 'T1' } });
    expect(new Date(last.completedAt).toISOString()).toBe(last.completedAt);
    // Nothing published was uncommitted: a read afterwards shows the same final status.
    const read = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.test_api_key });
    expect(read.body.status).toBe('success');
    expect(sub.errors).toEqual([]);
  });

  it('gives a late subscriber the current status first, then only the later changes', async () => {
    const s = await createSession(acme.live_api_key);
    await openHosted(s);
    const ws = await connected(acme.live_api_key);
    const sub = ws.subscribe(BY_ID, { id: s.id });
    await sub.waitForData(1);
    expect(statuses(sub)).toEqual(['IN_PROGRESS']);
    await cancel(acme.live_api_key, s.id);
    await sub.waitForComplete();
    expect(statuses(sub)).toEqual(['IN_PROGRESS', 'WITHDRAWN']);
  });

  it('sends a terminal current status once and completes at once', async () => {
    const s = await createSession(acme.live_api_key);
    await cancel(acme.live_api_key, s.id);
    const ws = await connected(s.client_secret);
    const sub = ws.subscribe(`subscription { sessionStatusChanged { id status } }`); // a client_secret without id watches its own session
    await sub.waitForComplete();
    expect(sub.data).toEqual([{ sessionStatusChanged: { id: s.id, status: 'WITHDRAWN' } }]);
  });

  it("refuses another session's id to a client_secret, and another tenant's session to a key, as not found", async () => {
    const mine = await createSession(acme.live_api_key);
    const theirs = await createSession(other.live_api_key);
    const sibling = await createSession(acme.live_api_key);
    const ws = await connected(mine.client_secret);
    const a = ws.subscribe(BY_ID, { id: sibling.id });
    await a.waitForError();
    expect(a.errors[0].extensions.code).toBe('not_found');
    const keyWs = await connected(acme.live_api_key);
    const b = keyWs.subscribe(BY_ID, { id: theirs.id });
    await b.waitForError();
    expect(b.errors[0].extensions.code).toBe('not_found');
    // A barrier on each connection: a watch of `mine`, whose cancellation is published after the
    // other two. Events reach a connection in the order they were published, so once this one has
    // arrived, anything sent for the refused subscriptions would have arrived before it.
    const barriers = [ws.subscribe(BY_ID, { id: mine.id }), keyWs.subscribe(BY_ID, { id: mine.id })];
    await Promise.all(barriers.map((barrier) => barrier.waitForData(1)));
    await cancel(other.live_api_key, theirs.id);
    await cancel(acme.live_api_key, sibling.id);
    await cancel(acme.live_api_key, mine.id);
    await Promise.all(barriers.map((barrier) => barrier.waitForComplete()));
    expect(barriers.map((barrier) => statuses(barrier))).toEqual([['CREATED', 'WITHDRAWN'], ['CREATED', 'WITHDRAWN']]);
    expect(a.data).toEqual([]);
    expect(b.data).toEqual([]);
  });
});

describe('sessionStatusChanged without id', () => {
  it("gives a tenant key every change of its tenant's sessions in its mode, and nothing else", async () => {
    const ws = await connected(acme.test_api_key);
    const sub = ws.subscribe(TENANT_WIDE);
    await settle(200); // the subscription is registered before the first transition below
    const live = await createSession(acme.live_api_key);
    const foreign = await createSession(other.test_api_key);
    const mine = await createSession(acme.test_api_key);
    await cancel(acme.live_api_key, live.id);
    await cancel(other.test_api_key, foreign.id);
    await cancel(acme.test_api_key, mine.id);
    // `mine` is withdrawn last: once that arrives, every earlier change sent to this connection has too.
    await ws.waitFor(() => sub.data.some((d) => d.sessionStatusChanged.id === mine.id && d.sessionStatusChanged.status === 'WITHDRAWN'));
    const seen = sub.data.map((d) => d.sessionStatusChanged);
    expect(seen.every((e) => e.livemode === false)).toBe(true);
    expect(seen.filter((e) => e.id === mine.id).map((e) => e.status)).toEqual(['CREATED', 'WITHDRAWN']);
    expect(seen.some((e) => e.id === live.id || e.id === foreign.id)).toBe(false);
  });

  it('gives a session client_secret only its own session, never its siblings', async () => {
    const s = await createSession(acme.live_api_key);
    const sibling = await createSession(acme.live_api_key);
    const ws = await connected(s.client_secret);
    const sub = ws.subscribe(`subscription { sessionStatusChanged { id status } }`);
    await sub.waitForData(1);
    await cancel(acme.live_api_key, sibling.id);
    await cancel(acme.live_api_key, s.id);
    await sub.waitForComplete();
    expect(sub.data.map((d) => d.sessionStatusChanged.id)).toEqual([s.id, s.id]);
  });
});

describe('connection_init', () => {
  it('closes with 4403 without a credential, with a wrong one, or with a key lacking sessions:read', async () => {
    const noScope = await cli(server.env, ['key', 'create', '--tenant', acme.tenant_id, '--mode', 'test', '--scopes', 'sessions:write', '--json']);
    expect(noScope.code).toBe(0);
    for (const credential of [null, 'sk_test_' + 'x'.repeat(40), 'nonsense', noScope.json!.api_key as string]) {
      const r = await connect(credential);
      expect(r.acked).toBe(false);
      expect(r.close?.code).toBe(4403);
    }
  });

  it('stops a key revoked by the CLI while connected: the socket closes with 4403 and no later event arrives', async () => {
    const k = await cli(server.env, ['key', 'create', '--tenant', acme.tenant_id, '--mode', 'live', '--json']);
    const ws = await connected(k.json!.api_key as string);
    const sub = ws.subscribe(TENANT_WIDE);
    await settle(200);
    const first = await createSession(acme.live_api_key);
    await sub.waitForData(1);
    const revoked = await cli(server.env, ['key', 'revoke', '--key', k.json!.key_id as string, '--json']);
    expect(revoked.code).toBe(0);
    const closed = await Promise.race([ws.closed, settle(5000).then(() => null)]);
    expect(closed?.code).toBe(4403);
    await cancel(acme.live_api_key, first.id);
    await settle(300);
    expect(statuses(sub)).toEqual(['CREATED']);
    const again = await connect(k.json!.api_key as string);
    expect(again.close?.code).toBe(4403);
  });
});

describe('limits and robustness', () => {
  it('refuses a subscription beyond the per-connection limit and a connection beyond the per-key limit', async () => {
    const t = await createTenant(server, 'limits');
    const ws = await connected(t.live_api_key);
    const subs = [1, 2, 3, 4].map(() => ws.subscribe(TENANT_WIDE));
    await subs[3].waitForError();
    expect(subs[3].errors[0].extensions.code).toBe('rate_limited');
    expect(subs.slice(0, 3).every((s) => s.errors.length === 0)).toBe(true);
    await connected(t.live_api_key);
    await connected(t.live_api_key);
    const fourth = await connect(t.live_api_key);
    expect(fourth.close?.code).toBe(4429);
  });

  it('refuses queries and mutations over the WebSocket (they go over HTTP)', async () => {
    const ws = await connected(acme.test_api_key);
    const q = ws.subscribe('{ sessions(first: 1) { edges { cursor } } }');
    await q.waitForError();
    expect(q.errors[0].extensions.code).toBe('invalid_request');
  });

  it('sends keep-alive pings', async () => {
    const ws = await connected(acme.test_api_key);
    await ws.waitFor(() => ws.pings >= 2, 5000);
    expect(ws.isOpen).toBe(true);
  });
});

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
if (!shared) {
  console.log('subscriptions: the two-instance Redis test runs only with DATABASE_URL and REDIS_URL set (the embedded database is per process)');
}
(shared ? describe : describe.skip)('two instances sharing PostgreSQL and Redis', () => {
  it('delivers a transition committed on instance A to subscribers connected to instance B', async () => {
    const b = await startServer(testEnv({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL }));
    try {
      const t = await createTenant(server, 'two-instances');
      const s = await createSession(t.live_api_key, server);
      const ws = await connected(s.client_secret, b);
      const byId = ws.subscribe(BY_ID, { id: s.id });
      const wideWs = await connected(t.live_api_key, b);
      const wide = wideWs.subscribe(TENANT_WIDE);
      await byId.waitForData(1);
      await settle(200);
      await openHosted(s, server);
      await cancel(t.live_api_key, s.id, server);
      await byId.waitForComplete();
      expect(statuses(byId)).toEqual(['CREATED', 'IN_PROGRESS', 'WITHDRAWN']);
      await wideWs.waitFor(() => wide.data.length >= 2);
      expect(statuses(wide)).toEqual(['IN_PROGRESS', 'WITHDRAWN']);
    } finally {
      await b.stop();
    }
  });
});

// Last: it stops the file's server.
describe('shutdown', () => {
  it('completes every subscription before closing the socket with 1001', async () => {
    const t = await createTenant(server, 'shutdown');
    const s = await createSession(t.live_api_key);
    const ws = await connected(t.live_api_key);
    const a = ws.subscribe(TENANT_WIDE);
    const b = ws.subscribe(BY_ID, { id: s.id });
    await b.waitForData(1);
    expect(await server.stop()).toBe(0);
    const closed = await ws.closed;
    expect(closed.code).toBe(1001);
    expect(a.completed && b.completed).toBe(true);
  });
});
