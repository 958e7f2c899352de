import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { createOidcTenant, createUser, signInThroughPages, startOidcServer, type OidcTenant } from '../../../test/helpers/oidc-login';
import { expectToMatchContract } from '../../../test/helpers/openapi-contract';
import { cli, createTenant, eventually, http, type Tenant, type TestServer } from '../../../test/helpers/test-server';
import { WebhookReceiver } from '../../../test/helpers/webhook-receiver';
import { IdvApiError, IdvClient, IdvConnectionError, IdvRateLimitError, IdvSignatureError, constructEvent, verifySignature, type Session } from '../src';

/**
 * The typed client (clients/typescript) against the built server, started as `npm start` starts it:
 * every call goes over HTTP to the real /v1 routes, and every type it uses is generated from openapi.yaml.
 */
describe('the typed TypeScript client', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let acme: OidcTenant;
  let client: IdvClient;

  const statusOf = (c: IdvClient, id: string, status: Session['status'], timeoutMs = 40_000) =>
    eventually(async () => {
      const s = await c.sessions.get(id);
      return s.status === status ? s : undefined;
    }, timeoutMs, 500);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    server = await startOidcServer();
    acme = await createOidcTenant(server, 'Acme Client');
    client = new IdvClient({ apiKey: acme.test_api_key, baseUrl: server.url });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  describe('sessions', () => {
    it('creates a session in the definition shape, reads it back, and creates one in the quickstart shape', async () => {
      const reference = `ref-${randomBytes(4).toString('hex')}`;
      const created = await client.sessions.create({ flow_id: 'default', tier: 'T2', reference_id: reference });
      expect(created.id).toMatch(/^vses_[A-Za-z0-9]{24}$/);
      expect(created).toMatchObject({ status: 'created', tier: 'T2', reference_id: reference, livemode: false, result: null });
      expect(created.client_secret).toEqual(expect.any(String));
      expect(created.hosted_url).toMatch(/^http/);

      const read = await client.sessions.get(created.id);
      // An open session's read carries a working hosted link again (D21).
      expect(read).toMatchObject({ id: created.id, status: 'created', tier: 'T2', reference_id: reference, hosted_url: expect.stringContaining(`/hosted/${created.id}?token=`) });
      expect(read).not.toHaveProperty('client_secret');

      const quick = await client.sessions.create({ tiers: ['T1', 'T3'], reference: `${reference}-q` });
      expect(quick).toMatchObject({ tier: 'T3', reference_id: `${reference}-q`, status: 'created' });
    });

    it('throws IdvApiError with the body\'s code, the status and the request id: 404 for an unknown session, 400 for a bad body', async () => {
      const missing = await client.sessions.get('vses_000000000000000000000000').catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(IdvApiError);
      const notFound = missing as IdvApiError;
      expect({ status: notFound.status, code: notFound.code }).toEqual({ status: 404, code: 'not_found' });
      expect(notFound.requestId).toEqual(expect.any(String));
      expect(notFound.body).toMatchObject({ error: { code: 'not_found', request_id: notFound.requestId } });

      // Another tenant's key reads the same id as not found (D6): the client surfaces the same typed error.
      const mine = await client.sessions.create({ flow_id: 'default', tier: 'T1' });
      const other = new IdvClient({ apiKey: (await createTenant(server, 'other-client')).test_api_key, baseUrl: server.url });
      await expect(other.sessions.get(mine.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });

      const bad = await client.sessions.create({ flow_id: 'default', tier: 'T6' }).catch((e: unknown) => e);
      expect(bad).toMatchObject({ name: 'IdvApiError', status: 400, code: 'tier_not_available' });
    });

    it('lists sessions newest first, page by page, filtered by status and reference_id', async () => {
      const lister = new IdvClient({ apiKey: (await createTenant(server, 'lister')).test_api_key, baseUrl: server.url });
      const made: string[] = [];
      for (const n of [1, 2, 3]) made.unshift((await lister.sessions.create({ flow_id: 'default', tier: 'T1', reference_id: `list-${n}` })).id);

      const first = await lister.sessions.list({ limit: 2 });
      expect(first.data.map((s) => s.id)).toEqual(made.slice(0, 2));
      expect(first).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String) });
      const second = await lister.sessions.list({ limit: 2, after: first.next_cursor! });
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      expect(second.data.map((s) => s.id)).toEqual(made.slice(2));

      const all: string[] = [];
      for await (const s of lister.sessions.listAll({ limit: 1 })) all.push(s.id);
      expect(all).toEqual(made);
      expect((await lister.sessions.list({ reference_id: 'list-2' })).data.map((s) => s.reference_id)).toEqual(['list-2']);
      await lister.sessions.cancel(made[0]);
      expect((await lister.sessions.list({ status: 'withdrawn' })).data.map((s) => s.id)).toEqual([made[0]]);

      await expect(lister.sessions.list({ limit: 101 })).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
      await expect(lister.sessions.list({ after: 'not-a-cursor' })).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    });

    it('cancels a session that is not finished; cancelling it again is a typed 409, and another tenant\'s is 404', async () => {
      const created = await client.sessions.create({ flow_id: 'default', tier: 'T2' });
      const cancelled = await client.sessions.cancel(created.id);
      expect(cancelled).toMatchObject({ id: created.id, status: 'withdrawn' });
      expect((await client.sessions.get(created.id)).status).toBe('withdrawn');
      await expect(client.sessions.cancel(created.id)).rejects.toMatchObject({ status: 409, code: 'invalid_state' });
      const other = new IdvClient({ apiKey: (await createTenant(server, 'other-cancel')).test_api_key, baseUrl: server.url });
      const theirs = await other.sessions.create({ flow_id: 'default', tier: 'T1' });
      await expect(client.sessions.cancel(theirs.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
      expect((await other.sessions.get(theirs.id)).status).toBe('created');
    });

    it('reads the decision history of a manual_review session and records an approval through decisions', async () => {
      const created = await client.sessions.create({ flow_id: 'default', tier: 'T1', metadata: { test_outcome: 'review' } });
      await statusOf(client, created.id, 'manual_review');

      const history = await client.sessions.listDecisions(created.id);
      expect(history).toEqual([expect.objectContaining({ session_id: created.id, source: 'automated', decision: 'review', to_status: 'manual_review' })]);

      const decision = await client.sessions.decide(created.id, { decision: 'approve', reason: 'Passport checked by hand', reviewer_id: 'rev-ana' });
      expect(decision).toMatchObject({ session_id: created.id, source: 'human', decision: 'approve', from_status: 'manual_review', to_status: 'success', reviewer_id: 'rev-ana' });
      expect(decision.id).toMatch(/^vdec_/);
      expect((await client.sessions.get(created.id)).status).toBe('success');
      expect((await client.sessions.listDecisions(created.id)).map((d) => d.source)).toEqual(['automated', 'human']);

      // Approving again is refused by the lifecycle (D3): a typed 409.
      await expect(client.sessions.decide(created.id, { decision: 'approve', reason: 'again, by mistake' })).rejects.toMatchObject({ status: 409, code: 'invalid_state' });
    });
  });

  describe('webhooks', () => {
    it('registers an endpoint and verifies a real delivery with verifySignature; a changed body, another secret or an old timestamp fail', async () => {
      const endpoint = await client.webhooks.create({ url: receiver.url('/client-hooks'), events: ['verification.completed'] });
      expect(endpoint.id).toMatch(/^whk_/);
      expect(endpoint.signing_secret).toMatch(/^whsec_/);

      const session = await client.sessions.create({ flow_id: 'default', tier: 'T1', metadata: { test_outcome: 'approved' } });
      const delivery = await eventually(async () => receiver.at('/client-hooks').find((d) => JSON.parse(d.body).data?.session_id === session.id));
      const header = String(delivery.headers['service-signature']);

      expect(verifySignature(delivery.body, header, endpoint.signing_secret)).toBe(true);
      expect(client.webhooks.verifySignature(Buffer.from(delivery.body), header, endpoint.signing_secret)).toBe(true);
      expect(verifySignature(delivery.body.replace('"success"', '"failed"'), header, endpoint.signing_secret)).toBe(false);
      expect(verifySignature(delivery.body, header, `whsec_${'x'.repeat(32)}`)).toBe(false);
      const t = Number(/t=(\d+)/.exec(header)![1]);
      expect(verifySignature(delivery.body, header, endpoint.signing_secret, { nowSeconds: t + 301 })).toBe(false);
      expect(verifySignature(delivery.body, header, endpoint.signing_secret, { nowSeconds: t + 299 })).toBe(true);

      const event = constructEvent(delivery.body, header, endpoint.signing_secret);
      expect(event).toMatchObject({ id: delivery.headers['service-event-id'], type: 'verification.completed', livemode: false, data: { session_id: session.id, status: 'success' } });
      expect(() => constructEvent(delivery.body, header, 'whsec_wrong')).toThrow(IdvSignatureError);

      const replayed = await client.webhooks.replay(endpoint.id, { event_ids: [event.id] });
      expect(replayed).toEqual({ queued: 1 });
    });

    it('lists endpoints without their secrets and deletes one; deleting it again is a typed 404', async () => {
      const a = await client.webhooks.create({ url: receiver.url('/list-a'), events: ['verification.failed'] });
      const listed = await client.webhooks.list();
      expect(listed[0]).toEqual({ id: a.id, url: a.url, events: ['verification.failed'], livemode: false, status: 'enabled', disabled_reason: null, failing_since: null, created_at: a.created_at });
      expect(JSON.stringify(listed)).not.toContain('whsec_');
      await client.webhooks.delete(a.id);
      expect((await client.webhooks.list()).map((e) => e.id)).not.toContain(a.id);
      await expect(client.webhooks.delete(a.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });
  });

  describe('the REST operations the client added to openapi.yaml', () => {
    it('answer as the document says: list and cancel sessions, list and delete webhook endpoints, success and error', async () => {
      const key = acme.test_api_key;
      const session = await client.sessions.create({ flow_id: 'default', tier: 'T1' });
      expectToMatchContract('GET', '/v1/verify/sessions', await http(server, 'GET', '/v1/verify/sessions?limit=2', { key }));
      expectToMatchContract('GET', '/v1/verify/sessions', await http(server, 'GET', '/v1/verify/sessions?colour=red', { key }));
      expectToMatchContract('GET', '/v1/verify/sessions', await http(server, 'GET', '/v1/verify/sessions'));
      expectToMatchContract('POST', '/v1/verify/sessions/{id}/cancel', await http(server, 'POST', `/v1/verify/sessions/${session.id}/cancel`, { key }));
      expectToMatchContract('POST', '/v1/verify/sessions/{id}/cancel', await http(server, 'POST', `/v1/verify/sessions/${session.id}/cancel`, { key }));
      expectToMatchContract('POST', '/v1/verify/sessions/{id}/cancel', await http(server, 'POST', '/v1/verify/sessions/vses_AAAAAAAAAAAAAAAAAAAAAAAA/cancel', { key }));
      const hook = await client.webhooks.create({ url: receiver.url('/contract'), events: ['verification.completed'] });
      expectToMatchContract('GET', '/v1/developer/webhooks', await http(server, 'GET', '/v1/developer/webhooks', { key }));
      expectToMatchContract('DELETE', '/v1/developer/webhooks/{id}', await http(server, 'DELETE', `/v1/developer/webhooks/${hook.id}`, { key }));
      expectToMatchContract('DELETE', '/v1/developer/webhooks/{id}', await http(server, 'DELETE', `/v1/developer/webhooks/${hook.id}`, { key }));
    });
  });

  describe('bulk import', () => {
    it('imports JSON records: created, a duplicate reference and a rejected record, each reported by line through the streamed results', async () => {
      const importer = new IdvClient({ apiKey: (await createTenant(server, 'bulk-client')).test_api_key, baseUrl: server.url });
      const job = await importer.bulkImports.create([
        { flow_id: 'default', tier: 'T1', reference_id: 'bulk-1', email: 'ada@example.com' },
        { tiers: ['T2'], reference: 'bulk-2' },
        { flow_id: 'default', tier: 'T6', reference_id: 'bulk-3' },
        { flow_id: 'default', tier: 'T1', reference_id: 'bulk-1' },
      ]);
      expect(job).toMatchObject({ object: 'bulk_import', livemode: false, total: 4 });
      expect(job.id).toMatch(/^bimp_/);
      const done = await importer.bulkImports.waitUntilDone(job.id, { intervalMs: 250, timeoutMs: 60_000 });
      expect(done).toMatchObject({ status: 'completed', created: 2, duplicates: 1, rejected: 1, completed_at: expect.any(String) });

      const results = [];
      for await (const r of importer.bulkImports.results(job.id)) results.push(r);
      expect(results.map((r) => [r.line, r.reference_id, r.outcome])).toEqual([
        [1, 'bulk-1', 'created'],
        [2, 'bulk-2', 'created'],
        [3, 'bulk-3', 'rejected'],
        [4, 'bulk-1', 'duplicate'],
      ]);
      expect(results[2].error?.code).toBe('tier_not_available');
      expect(results[3].session_id).toBe(results[0].session_id);
      // The sessions are real: the client reads them like any other.
      const first = await importer.sessions.get(results[0].session_id!);
      expect(first).toMatchObject({ reference_id: 'bulk-1', tier: 'T1' });
      expect((await importer.sessions.list({ reference_id: 'bulk-2' })).data.map((x) => x.id)).toEqual([results[1].session_id]);
    });

    it('imports NDJSON text with its own line numbers, and reports an unknown import as a typed 404', async () => {
      const importer = new IdvClient({ apiKey: (await createTenant(server, 'bulk-ndjson')).test_api_key, baseUrl: server.url });
      const job = await importer.bulkImports.createFromNdjson('{"flow_id":"default","tier":"T1","reference_id":"nd-1"}\n{not json}\n');
      const done = await importer.bulkImports.waitUntilDone(job.id, { intervalMs: 250, timeoutMs: 60_000 });
      expect(done).toMatchObject({ total: 2, created: 1, rejected: 1 });
      const results = [];
      for await (const r of importer.bulkImports.results(job.id)) results.push(r);
      expect(results.map((r) => [r.line, r.outcome])).toEqual([
        [1, 'created'],
        [2, 'rejected'],
      ]);
      await expect(importer.bulkImports.get('bimp_0000000000000000000000')).rejects.toMatchObject({ status: 404, code: 'not_found' });
      const missing = importer.bulkImports.results('bimp_0000000000000000000000');
      await expect(missing.next()).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });
  });

  describe('retention and delegated requests', () => {
    it('reads and changes the retention policy, and names the field of an out-of-range value', async () => {
      const before = await client.retention.get(acme.tenant_id);
      expect(before).toMatchObject({ tenant_id: acme.tenant_id, livemode: false });
      const after = await client.retention.update(acme.tenant_id, { selfie_image_days: 7 });
      expect(after).toMatchObject({ selfie_image_days: 7, biometric_template_days: before.biometric_template_days });
      expect(after.updated_at).toEqual(expect.any(String));
      const bad = await client.retention.update(acme.tenant_id, { selfie_video_days: 999 }).catch((e: unknown) => e);
      expect(bad).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/^selfie_video_days/) });
    });

    it('initiates a delegated access request for a signed-in user; an unknown subject is a typed 404', async () => {
      const email = `client-${randomBytes(4).toString('hex')}@example.com`;
      await createUser(server, email);
      const { tokens } = await signInThroughPages(server, acme, email);
      const job = await client.dataRights.initiateDelegatedRequest({ user_sub: tokens.claims().sub, purpose: 'access', callback_url: receiver.url('/dsr') });
      expect(job).toMatchObject({ object: 'dsr_job', status: 'awaiting_confirmation', delegated: true, purpose: 'access' });
      expect(job.callback_signing_secret).toEqual(expect.any(String));
      await expect(client.dataRights.initiateDelegatedRequest({ user_sub: 'not-a-subject', purpose: 'access', callback_url: receiver.url('/dsr') })).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });
  });

  describe('flows', () => {
    it('creates, lists, reads and changes a flow, and names the field of a bad value', async () => {
      const flow = await client.flows.create({ name: 'Client flow', max_tier: 'T2', allowed_origins: ['https://shop.example'] });
      expect(flow).toMatchObject({ object: 'flow', name: 'Client flow', max_tier: 'T2', allowed_origins: ['https://shop.example'] });
      expect((await client.flows.list()).map((f) => f.id)).toContain(flow.id);
      expect(await client.flows.get(flow.id)).toEqual(flow);
      const changed = await client.flows.update(flow.id, { display_name: 'Client', logo_url: null });
      expect(changed).toMatchObject({ display_name: 'Client', logo_url: null });
      await expect(client.flows.update(flow.id, { primary_color: 'red' })).rejects.toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(/^primary_color/) });
    });
  });

  describe('rate limits and retries', () => {
    let limited: Tenant;
    let sessionId: string;
    const setLimit = async (limit: number | null) => {
      const args = limit === null ? ['limits', 'clear', '--tenant', limited.tenant_id, '--bucket', 'verify_read'] : ['limits', 'set', '--tenant', limited.tenant_id, '--bucket', 'verify_read', '--limit', String(limit)];
      expect((await cli(server.env, [...args, '--json'])).code).toBe(0);
      await new Promise((r) => setTimeout(r, 1_200)); // each instance reads overrides through a 1 s cache
    };

    beforeAll(async () => {
      limited = await createTenant(server, 'limited-client');
      sessionId = (await new IdvClient({ apiKey: limited.test_api_key, baseUrl: server.url }).sessions.create({ flow_id: 'default', tier: 'T1' })).id;
    });

    it('waits the retry-after of a 429 and then retries, with the clock it was given', async () => {
      await setLimit(2);
      const answers: { status: number; retryAfter: string | null }[] = [];
      const waits: number[] = [];
      const c = new IdvClient({
        apiKey: limited.test_api_key,
        baseUrl: server.url,
        fetch: async (request) => {
          const response = await fetch(request);
          answers.push({ status: response.status, retryAfter: response.headers.get('retry-after') });
          return response;
        },
        // While the client waits, the operator lifts the limit: the retry it sends after waiting passes.
        sleep: async (ms) => {
          waits.push(ms);
          await setLimit(null);
        },
      });
      await c.sessions.get(sessionId);
      await c.sessions.get(sessionId);
      const third = await c.sessions.get(sessionId);
      expect(third.id).toBe(sessionId);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 200]);
      const retryAfter = Number(answers[2].retryAfter);
      expect(retryAfter).toBeGreaterThan(0);
      expect(waits).toEqual([retryAfter * 1000]);
    });

    it('throws IdvRateLimitError with the bucket and retry-after once its retries are spent, or at once when retry-after is too long', async () => {
      await setLimit(1);
      let slept = 0;
      const noRetries = new IdvClient({ apiKey: limited.test_api_key, baseUrl: server.url, maxRetries: 0 });
      await noRetries.sessions.get(sessionId).catch(() => undefined); // uses up the one request, if the window had room
      const impatient = new IdvClient({ apiKey: limited.test_api_key, baseUrl: server.url, maxRetryAfterSeconds: 0, sleep: async () => void slept++ });
      for (const c of [noRetries, impatient]) {
        const err = await c.sessions.get(sessionId).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(IdvRateLimitError);
        expect(err).toMatchObject({ status: 429, code: 'rate_limited', bucket: 'verify_read', requestId: expect.any(String) });
        expect((err as IdvRateLimitError).retryAfterSeconds).toBeGreaterThan(0);
      }
      expect(slept).toBe(0);
      await setLimit(null);
    });

    /** A TCP proxy in front of the server that drops the first `drop` connections it accepts, unanswered. */
    async function flakyProxy(drop: number): Promise<{ url: string; accepted: () => number; close: () => Promise<void> }> {
      let accepted = 0;
      const open = new Set<net.Socket>();
      const target = new URL(server.url);
      const proxy = net.createServer((socket) => {
        accepted++;
        open.add(socket);
        if (accepted <= drop) return socket.destroy();
        const upstream = net.connect(Number(target.port), target.hostname);
        socket.on('error', () => undefined);
        socket.on('close', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
        socket.pipe(upstream).pipe(socket);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      return {
        url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
        accepted: () => accepted,
        close: () =>
          new Promise<void>((resolve) => {
            for (const s of open) s.destroy();
            proxy.close(() => resolve());
          }),
      };
    }

    it('retries a GET whose connection was dropped, but never a POST (the API has no Idempotency-Key)', async () => {
      const forGet = await flakyProxy(2);
      const viaGet = new IdvClient({ apiKey: acme.test_api_key, baseUrl: forGet.url, backoffBaseMs: 10 });
      const created = await client.sessions.create({ flow_id: 'default', tier: 'T1' });
      expect((await viaGet.sessions.get(created.id)).id).toBe(created.id);
      expect(forGet.accepted()).toBe(3);

      const forPost = await flakyProxy(1);
      const viaPost = new IdvClient({ apiKey: acme.test_api_key, baseUrl: forPost.url, backoffBaseMs: 10 });
      const err = await viaPost.sessions.create({ flow_id: 'default', tier: 'T1' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdvConnectionError);
      expect(err).toMatchObject({ timedOut: false, message: expect.stringContaining('POST /v1/verify/sessions') });
      expect(forPost.accepted()).toBe(1);

      // With more drops than retries a GET gives up with the same typed error.
      const dead = await flakyProxy(10);
      const viaDead = new IdvClient({ apiKey: acme.test_api_key, baseUrl: dead.url, backoffBaseMs: 10, maxRetries: 2 });
      await expect(viaDead.sessions.get(created.id)).rejects.toBeInstanceOf(IdvConnectionError);
      expect(dead.accepted()).toBe(3);
      await Promise.all([forGet.close(), forPost.close(), dead.close()]);
    });
  });
});
