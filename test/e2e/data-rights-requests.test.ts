import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { boundSession, boundSessionWithCaptures, Delivered, deliveredTo, operatorGraphql, registerEndpoint, signedInUser, SignedInUser } from '../helpers/data-rights-fixtures';
import { dbClient, openPage, pageCall } from '../helpers/hosted-client';
import { eventually, graphql, http, TestServer } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { RawGraphQLWs } from '../helpers/ws-client';
import { createOidcTenant, OidcTenant, startOidcServer } from '../helpers/oidc-login';

const ADMIN_API_KEY = 'op_admin_requests_0123456789abcdefghijklmnopqrstuvwxyz';

/** The end user's data-rights requests besides erasure and export (docs/data-rights.md), through REST and GraphQL. */
describe('data-rights requests of the signed-in user', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let db: Client;
  let acme: OidcTenant;
  let other: OidcTenant;
  let secrets: Record<string, string>;
  let ana: SignedInUser;
  let ben: SignedInUser;
  const run = randomBytes(4).toString('hex');
  const events = (path: string): Delivered[] => deliveredTo(receiver, path, secrets[path]);
  const decided = async (id: string, key: string) =>
    eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key });
      return ['success', 'failed'].includes(r.body?.status) ? r.body : undefined;
    });

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // Rate limits off: every user here signs in through the pages twice (the tenant's app and the account
    // portal, D20), all from 127.0.0.1, which meets the per-address `default` bucket (120 a minute) when
    // several users sign in at once. Metering is tested in rate-limit.test.ts.
    server = await startOidcServer({ ADMIN_API_KEY, RATE_LIMIT_ENABLED: 'false' });
    db = await dbClient(server);
    acme = await createOidcTenant(server, 'acme');
    other = await createOidcTenant(server, 'other');
    secrets = { '/acme': await registerEndpoint(server, receiver, acme.test_api_key, '/acme'), '/other': await registerEndpoint(server, receiver, other.test_api_key, '/other') };
    ana = await signedInUser(server, acme, { email: `ana.${run}@example.org` });
    ben = await signedInUser(server, acme, { email: `ben.${run}@example.org` });
  });

  afterAll(async () => {
    await db?.end();
    await server?.stop();
    await receiver?.close();
  });

  describe('every endpoint refuses a tenant API key', () => {
    it.each([
      ['POST', '/v1/me/restrict'],
      ['DELETE', '/v1/me/restrict'],
      ['POST', '/v1/me/object'],
      ['DELETE', '/v1/me/biometrics'],
      ['POST', '/v1/me/verifications/vses_AAAAAAAAAAAAAAAAAAAA/review'],
      ['PATCH', '/v1/me/profile'],
      ['POST', '/v1/me/delete'],
    ])('%s %s answers 403 user_token_required', async (method, path) => {
      const r = await http(server, method, path, { key: acme.test_api_key, json: {} });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('user_token_required');
    });

    it('the GraphQL twins refuse a tenant key the same way', async () => {
      const r = await graphql(server, 'mutation { restrictMe { id } }', {}, acme.test_api_key);
      expect(r.body.errors[0].extensions.code).toBe('user_token_required');
    });
  });

  describe('PATCH /v1/me/profile', () => {
    it('changes self-managed fields at once and queues verified ones, showing what is pending', async () => {
      const r = await http(server, 'PATCH', '/v1/me/profile', { key: ana.accessToken, json: { display_name: 'Ana', handle: `ana_${run}`, bio: 'hello', legal_name: 'Ana Maria Example' } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ display_name: 'Ana', handle: `ana_${run}`, bio: 'hello', legal_name: null, pending_changes: [{ field: 'legal_name', value: 'Ana Maria Example' }] });
      const queue = await operatorGraphql(server, ADMIN_API_KEY, '{ profileChanges(status: "pending") { id userId field value } }');
      const mine = queue.body.data.profileChanges.filter((c: { userId: string }) => c.userId === ana.userId);
      expect(mine).toEqual([expect.objectContaining({ field: 'legal_name', value: 'Ana Maria Example' })]);
      const approved = await operatorGraphql(server, ADMIN_API_KEY, 'mutation($id: ID!) { decideProfileChange(id: $id, decision: "approve", note: "document checked") { status } }', { id: mine[0].id });
      expect(approved.body.data.decideProfileChange.status).toBe('approved');
      const after = await http(server, 'GET', '/v1/me/profile', { key: ana.accessToken });
      expect(after.body).toMatchObject({ legal_name: 'Ana Maria Example', pending_changes: [] });
    });

    it('refuses unknown fields and bad values with 400, and a taken handle with 409', async () => {
      expect((await http(server, 'PATCH', '/v1/me/profile', { key: ana.accessToken, json: { email: 'x@example.org' } })).body.error.code).toBe('invalid_request');
      expect((await http(server, 'PATCH', '/v1/me/profile', { key: ana.accessToken, json: { date_of_birth: '1990-02-30' } })).body.error.code).toBe('invalid_request');
      const taken = await http(server, 'PATCH', '/v1/me/profile', { key: ben.accessToken, json: { handle: `ana_${run}` } });
      expect(taken.status).toBe(409);
    });

    it('keeps the review queues for internal tools: a tenant key gets insufficient_scope', async () => {
      const r = await graphql(server, '{ profileChanges { id } reviewCases { id } }', {}, acme.test_api_key);
      expect(r.body.errors[0].extensions.code).toBe('insufficient_scope');
    });
  });

  describe('POST /v1/me/object', () => {
    it('records the objection (visible in the profile) and answers the same job when asked twice', async () => {
      const first = await http(server, 'POST', '/v1/me/object', { key: ana.accessToken, json: { processing: 'feed_ranking' } });
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ kind: 'objection', status: 'completed' });
      const again = await http(server, 'POST', '/v1/me/object', { key: ana.accessToken, json: { processing: 'feed_ranking' } });
      expect(again.body.id).toBe(first.body.id);
      const profile = await http(server, 'GET', '/v1/me/profile', { key: ana.accessToken });
      expect(profile.body.objections).toEqual([{ processing: 'feed_ranking', objected_at: expect.any(String) }]);
    });

    it('refuses processing one cannot object to', async () => {
      const r = await http(server, 'POST', '/v1/me/object', { key: ana.accessToken, json: { processing: 'advertising' } });
      expect(r.status).toBe(400);
    });
  });

  describe('POST /v1/me/verifications/{id}/review', () => {
    it("opens one case per verification, 404 for another user's, and a re-decision updates the session and sends its event again", async () => {
      const id = await boundSession(server, db, acme, ana, { metadata: { test_outcome: 'declined' } });
      expect((await decided(id, acme.test_api_key)).status).toBe('failed');
      expect((await http(server, 'POST', `/v1/me/verifications/${id}/review`, { key: ben.accessToken, json: { reason: 'not mine' } })).status).toBe(404);
      const r = await http(server, 'POST', `/v1/me/verifications/${id}/review`, { key: ana.accessToken, json: { reason: 'The document was mine and valid' } });
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ kind: 'review', status: 'received', review_case: { status: 'open', verification_id: id } });
      const twice = await http(server, 'POST', `/v1/me/verifications/${id}/review`, { key: ana.accessToken, json: { reason: 'Again' } });
      expect(twice.body.review_case.id).toBe(r.body.review_case.id);

      const decision = await operatorGraphql(server, ADMIN_API_KEY, 'mutation($id: ID!) { decideReviewCase(id: $id, decision: "approve", note: "document verified by hand") { status decision } }', { id: r.body.review_case.id });
      expect(decision.body.data.decideReviewCase).toEqual({ status: 'decided', decision: 'approved' });
      const session = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key });
      expect(session.body).toMatchObject({ status: 'success' });
      const completed = await eventually(async () => events('/acme').find((e) => e.type === 'verification.completed' && e.data.session_id === id));
      expect(completed).toMatchObject({ signed: true, data: { decision: 'approved' } });
      const status = await http(server, 'GET', `/v1/me/verifications/${id}/review`, { key: ana.accessToken });
      expect(status.body.data).toEqual([expect.objectContaining({ status: 'decided', decision: 'approved' })]);
    });
  });

  describe('restriction', () => {
    let sessionId: string;

    it('answers tenant reads of the user\'s sessions with the 409 user_restricted problem document, on REST and GraphQL', async () => {
      sessionId = await boundSession(server, db, acme, ben);
      const first = await http(server, 'POST', '/v1/me/restrict', { key: ben.accessToken });
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ kind: 'restriction', status: 'completed' });
      const again = await http(server, 'POST', '/v1/me/restrict', { key: ben.accessToken });
      expect(again.body.id).toBe(first.body.id);

      const read = await http(server, 'GET', `/v1/verify/sessions/${sessionId}`, { key: acme.test_api_key });
      expect(read.status).toBe(409);
      expect(read.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(read.body).toMatchObject({ type: expect.stringMatching(/\/errors\/user_restricted$/), title: expect.any(String), status: 409, detail: expect.any(String), code: 'user_restricted' });
      const q = await graphql(server, 'query($id: ID!) { session(id: $id) { id } }', { id: sessionId }, acme.test_api_key);
      expect(q.body.errors[0].extensions.code).toBe('user_restricted');
    });

    it('refuses to bind a new session to the restricted user', async () => {
      // The tenant's access token names the tenant's own (pairwise) subject for the user.
      const sub = (JSON.parse(Buffer.from(ben.tenantAccessToken.split('.')[1], 'base64url').toString('utf8')) as { sub: string }).sub;
      expect(sub).toBe(ben.sub);
      const bind = () => http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1', user_sub: sub } });
      const refused = await bind();
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'user_restricted', status: 409 });
      expect((await http(server, 'DELETE', '/v1/me/restrict', { key: ben.accessToken })).status).toBe(202);
      const bound = await bind();
      expect(bound.status).toBe(201);
      expect(bound.body.user_sub).toBe(sub);
      expect((await http(server, 'POST', '/v1/me/restrict', { key: ben.accessToken })).status).toBe(202);
    });

    it('lets data-rights requests go on while restricted, and lifting restores the reads', async () => {
      expect((await http(server, 'GET', '/v1/me/profile', { key: ben.accessToken })).status).toBe(200);
      const lifted = await http(server, 'DELETE', '/v1/me/restrict', { key: ben.accessToken });
      expect(lifted.status).toBe(202);
      expect(lifted.body).toMatchObject({ kind: 'restriction', status: 'completed' });
      expect((await http(server, 'GET', `/v1/verify/sessions/${sessionId}`, { key: acme.test_api_key })).status).toBe(200);
    });
  });

  describe('restriction over WebSocket (graphql-ws)', () => {
    const BY_ID = `subscription ($id: ID) { sessionStatusChanged(id: $id) { id status } }`;
    const TENANT_WIDE = `subscription { sessionStatusChanged { id status } }`;
    const sockets: RawGraphQLWs[] = [];
    const connected = async (credential: string) => {
      const r = await RawGraphQLWs.connect(server.url, RawGraphQLWs.bearer(credential));
      if (!r.acked) throw new Error(`connection refused: ${JSON.stringify(r.close)}`);
      sockets.push(r.client);
      return r.client;
    };
    const liveSession = async () => {
      const r = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T1' } });
      expect(r.status).toBe(201);
      return r.body as { id: string; client_secret: string; hosted_url: string };
    };
    /** The end user's own page starts the session: created -> in_progress. */
    const start = async (session: { id: string; hosted_url: string }) => {
      expect((await pageCall(server, await openPage(server, session), 'POST', 'start')).status).toBe(200);
    };
    afterAll(() => {
      for (const c of sockets) c.close();
    });

    it("ends a tenant's watch of the user's session with user_restricted, then complete, refuses new ones (also with the session's client_secret), and hides the session from tenant-wide watches", async () => {
      const dora = await signedInUser(server, acme, { email: `dora.${run}@example.org` });
      const bound = await liveSession(); // live mode: nothing moves it on its own
      await db.query(`UPDATE sessions SET user_id = $2 WHERE id = $1`, [bound.id, dora.userId]);
      const unbound = await liveSession();
      const ws = await connected(acme.live_api_key);
      const watch = ws.subscribe(BY_ID, { id: bound.id });
      const wide = ws.subscribe(TENANT_WIDE);
      await watch.waitForData(1);
      expect(watch.data).toEqual([{ sessionStatusChanged: { id: bound.id, status: 'CREATED' } }]);

      expect((await http(server, 'POST', '/v1/me/restrict', { key: dora.accessToken })).status).toBe(202);
      // No change of the session is needed: the open watch is re-checked (SUBSCRIPTION_AUTH_RECHECK_MS, 1 s). The
      // wait's ceiling (the helper's 60 s) only bounds a hang: a loaded machine may run the re-check late.
      await watch.waitForComplete();
      expect(watch.errors.map((e) => e.extensions.code)).toEqual(['user_restricted']);
      expect(ws.messages.filter((m) => m.id === watch.id).map((m) => m.type)).toEqual(['next', 'next', 'complete']);

      const refused = ws.subscribe(BY_ID, { id: bound.id });
      await refused.waitForComplete();
      expect(refused.errors.map((e) => e.extensions.code)).toEqual(['user_restricted']);
      expect(refused.data).toEqual([]);

      // The session's client_secret gets the same answer as the key (issue #25, finding 7).
      const own = (await connected(bound.client_secret)).subscribe(BY_ID, { id: bound.id });
      await own.waitForComplete();
      expect(own.errors.map((e) => e.extensions.code)).toEqual(['user_restricted']);
      expect(own.data).toEqual([]);
      await start(bound);
      // The tenant-wide watch was served the bound session's change before the unbound session's
      // later change, which is the barrier that shows the watch is live.
      await start(unbound);
      await ws.waitFor(() => wide.data.some((d) => d.sessionStatusChanged.id === unbound.id && d.sessionStatusChanged.status === 'IN_PROGRESS'));
      expect(wide.data.filter((d) => d.sessionStatusChanged.id === bound.id)).toEqual([]);
      expect(wide.errors).toEqual([]);
      expect(wide.completed).toBe(false);

      expect((await http(server, 'DELETE', '/v1/me/restrict', { key: dora.accessToken })).status).toBe(202);
      const again = ws.subscribe(BY_ID, { id: bound.id });
      await again.waitForData(1);
      expect(again.data).toEqual([{ sessionStatusChanged: { id: bound.id, status: 'IN_PROGRESS' } }]);
      expect(again.errors).toEqual([]);
    });
  });

  describe('DELETE /v1/me/biometrics', () => {
    it('purges the selfies of a user with 20 sessions within 60 s, one biometric.purged per artifact, liveness badge gone, records kept', async () => {
      const carl = await signedInUser(server, acme, { email: `carl.${run}@example.org` });
      const ids: string[] = [];
      const approved = await boundSession(server, db, acme, carl, { metadata: { test_outcome: 'approved' } });
      for (let i = 0; i < 20; i++) ids.push(await boundSessionWithCaptures(server, db, acme, carl));
      expect((await decided(approved, acme.test_api_key)).result.badges).toEqual(expect.arrayContaining(['photo', 'liveness']));
      const r = await http(server, 'DELETE', '/v1/me/biometrics', { key: carl.accessToken });
      const answered = Date.now();
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ kind: 'biometric_purge' });
      // Within 60 s: the purge is a job due at the request (not later), which the workers take at their next poll
      // (JOB_POLL_SECONDS, 0.5 s). The test reads that schedule; how soon a loaded machine's worker runs it is the machine's.
      const schema = server.env.JOB_SCHEMA ?? 'pgboss';
      const due = await db.query(`SELECT start_after, created_on FROM ${schema}.job WHERE name = 'dsr-biometric-purge' AND data->>'userId' = $1`, [carl.userId]);
      expect(due.rows).toHaveLength(1);
      expect(new Date(due.rows[0].start_after).getTime()).toBeLessThanOrEqual(answered);
      expect(due.rows[0].start_after).toEqual(due.rows[0].created_on);
      const purged = await eventually(async () => {
        const seen = events('/acme').filter((e) => e.type === 'biometric.purged' && ids.includes(e.data.verification_id));
        return seen.length >= ids.length ? seen : undefined;
      }, 180_000); // a hang bound only: the 60 s is the schedule read above
      for (const e of purged) expect(e).toMatchObject({ signed: true, data: { artifact: 'selfie_image' } });
      // The badges and scores go in the transaction that completes the request, after the artifacts' events: read them once it has.
      const job = await eventually(async () => {
        const j = await db.query(`SELECT status FROM dsr_jobs WHERE id = $1`, [r.body.id]);
        return j.rows[0]?.status === 'completed' ? j.rows[0] : undefined;
      });
      expect(job.status).toBe('completed');
      const s = await http(server, 'GET', `/v1/verify/sessions/${approved}`, { key: acme.test_api_key });
      expect(s.status).toBe(200);
      expect(s.body.result.badges).not.toContain('liveness');
      expect(s.body.result.badges).toContain('photo');
      const left = await db.query(`SELECT count(*)::int AS n FROM artifacts WHERE session_id = ANY($1) AND class = 'selfie_image' AND purged_at IS NULL`, [ids]);
      expect(left.rows[0].n).toBe(0);
      const docs = await db.query(`SELECT count(*)::int AS n FROM artifacts WHERE session_id = ANY($1) AND class = 'id_document_image' AND purged_at IS NULL`, [ids]);
      expect(docs.rows[0].n).toBe(20);
      // A figure for the reader, not a verdict (the machine's load sets it).
      console.log(`biometric purge, 20 sessions: last biometric.purged delivered ${Math.max(...purged.map((e) => e.at)) - answered} ms after the request`);
    });

    it('purges several users asking at the same moment, each request completed with its own count and each selfie announced once', async () => {
      const users = await Promise.all([1, 2, 3].map((n) => signedInUser(server, acme, { email: `bulk${n}.${run}@example.org` })));
      const sessionsOf = new Map<string, string[]>();
      for (const [i, u] of users.entries()) {
        const ids: string[] = [];
        for (let k = 0; k <= i; k++) ids.push(await boundSessionWithCaptures(server, db, acme, u));
        sessionsOf.set(u.userId, ids);
      }
      const requests = await Promise.all(users.map((u) => http(server, 'DELETE', '/v1/me/biometrics', { key: u.accessToken })));
      expect(requests.map((r) => r.status)).toEqual([202, 202, 202]);
      const all = users.flatMap((u) => sessionsOf.get(u.userId)!);
      const purged = await eventually(async () => {
        const seen = events('/acme').filter((e) => e.type === 'biometric.purged' && all.includes(e.data.verification_id));
        return seen.length >= all.length ? seen : undefined;
      }, 180_000);
      expect(purged.map((e) => e.data.verification_id).sort()).toEqual([...all].sort());
      const results = await eventually(async () => {
        const j = await db.query(`SELECT id, status, result FROM dsr_jobs WHERE id = ANY($1)`, [requests.map((r) => r.body.id)]);
        return j.rows.every((row) => row.status === 'completed') ? j.rows : undefined;
      });
      for (const [i, r] of requests.entries()) expect(results.find((row) => row.id === r.body.id).result).toEqual({ purged_artifacts: i + 1 });
    });

    it('tells nothing to a tenant that never verified these users', async () => {
      expect(events('/other').filter((e) => /^(user|biometric)\./.test(e.type))).toEqual([]);
    });
  });
});
