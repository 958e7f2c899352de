import { captureAndSubmit, decided, passportFields, passportPhoto } from '../helpers/live-session';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { createOidcTenant, createUser, signInThroughPages, startOidcServer, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { cli, createTenant, eventually, graphql, http, type Tenant, type TestServer } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * docs/decisions.md D16 through the built server: every session's decision history (the pipeline's
 * decision, then each person's), POST /v1/verify/sessions/{id}/decisions with approve, decline and
 * reverse, race-safety between two reviewers, and a reversal that re-sends the verification event
 * and takes the user's verified claim with it.
 */
describe('session decisions (D16)', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let acme: OidcTenant;
  let other: Tenant;
  let readOnlyKey = '';

  const decisions = (id: string, key: string) => http(server, 'GET', `/v1/verify/sessions/${id}/decisions`, { key });
  const decide = (id: string, key: string, json: unknown) => http(server, 'POST', `/v1/verify/sessions/${id}/decisions`, { key, json });
  const create = (key: string, json: Record<string, unknown>) => http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', ...json } });
  /** Waits for a status a test session's clock (10 s, D22) brings; the ceiling only bounds a hang, whatever the machine's load. */
  const statusOf = (id: string, key: string, status: string, timeoutMs = 120_000) =>
    eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key });
      return r.body.status === status ? r.body : undefined;
    }, timeoutMs);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // CHECK_WORKERS=1: the embedded engines decide the live session in one worker (2 shared cores).
    server = await startOidcServer({ CHECK_WORKERS: '1', WEBHOOK_RETRY_SCALE: '0.001', RATE_LIMIT_ENABLED: 'false' });
    acme = await createOidcTenant(server, 'Acme Decisions');
    other = await createTenant(server, 'other-decisions');
    const narrow = await cli(server.env, ['key', 'create', '--tenant', acme.tenant_id, '--mode', 'test', '--scopes', 'sessions:read', '--json']);
    readOnlyKey = String(narrow.json?.api_key ?? '');
    expect(narrow.json).toMatchObject({ livemode: false, scopes: ['sessions:read'] });
    // Live endpoints must be https; the test-mode endpoint shows the re-sent event.
    const hook = await http(server, 'POST', '/v1/verify/webhooks', { key: acme.test_api_key, json: { url: receiver.url('/test'), events: ['verification.completed', 'verification.failed', 'verification.manual_review'] } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("writes the pipeline's decision first; a reviewer's approve follows, and of two reviewers deciding at once one gets 201 and the other 409", async () => {
    const created = await create(acme.test_api_key, { tier: 'T3', metadata: { test_outcome: 'review' } });
    const id = created.body.id as string;
    await statusOf(id, acme.test_api_key, 'manual_review');

    const before = await decisions(id, acme.test_api_key);
    expect(before.status).toBe(200);
    expectToMatchContract('get', '/v1/verify/sessions/{id}/decisions', before);
    expect(before.body.data).toEqual([
      expect.objectContaining({ session_id: id, source: 'automated', decision: 'review', from_status: 'processing', to_status: 'manual_review', reason: null, reviewer_id: null, policy_version: 'test-mode-1' }),
    ]);
    expect(before.body.data[0].checks.map((c: { name: string }) => c.name)).toEqual(['document_ocr', 'face_match', 'liveness', 'anti_spoof', 'sanctions_screening']);

    const [a, b] = await Promise.all([
      decide(id, acme.test_api_key, { decision: 'approve', reason: 'Passport checked by hand', reviewer_id: 'rev-ana' }),
      decide(id, acme.test_api_key, { decision: 'decline', reason: 'Photo does not match', reviewer_id: 'rev-bo' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const won = a.status === 201 ? a : b;
    const lost = a.status === 201 ? b : a;
    expect(lost.body.error.code).toBe('invalid_state');
    expectToMatchContract('post', '/v1/verify/sessions/{id}/decisions', won);
    expect(won.body.id).toMatch(/^vdec_[A-Za-z0-9]{24}$/);
    expect(won.body).toMatchObject({ session_id: id, source: 'human', requested_by: 'tenant', from_status: 'manual_review' });

    const after = (await decisions(id, acme.test_api_key)).body.data;
    expect(after.map((d: { source: string }) => d.source)).toEqual(['automated', 'human']);
    expect(after[1]).toEqual(won.body);
    const session = (await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key })).body;
    expect(session.status).toBe(won.body.to_status);
  });

  it('refuses what a reviewer may not do, with the error body: bad input 400, no scope 403, the other tenant 404, the wrong state 409', async () => {
    const created = await create(acme.test_api_key, { tier: 'T2', metadata: { test_outcome: 'review' } });
    const id = created.body.id as string;
    await statusOf(id, acme.test_api_key, 'manual_review');
    const cases: [string, string, unknown, number, string][] = [
      ['a short reason', acme.test_api_key, { decision: 'approve', reason: 'ok' }, 400, 'invalid_request'],
      ['an unknown decision', acme.test_api_key, { decision: 'maybe', reason: 'looks fine' }, 400, 'invalid_request'],
      ['an unknown field', acme.test_api_key, { decision: 'approve', reason: 'looks fine', colour: 'red' }, 400, 'invalid_request'],
      ['a reason with NUL', acme.test_api_key, { decision: 'approve', reason: 'looks\u0000fine' }, 400, 'invalid_request'],
      ['a key without sessions:review', readOnlyKey, { decision: 'approve', reason: 'looks fine' }, 403, 'insufficient_scope'],
      ["another tenant's key", other.test_api_key, { decision: 'approve', reason: 'looks fine' }, 404, 'not_found'],
      ['the live key (the other mode)', acme.live_api_key, { decision: 'approve', reason: 'looks fine' }, 404, 'not_found'],
      ['a reverse of a session in manual_review', acme.test_api_key, { decision: 'reverse', reason: 'fraud found' }, 409, 'invalid_state'],
    ];
    for (const [what, key, body, status, code] of cases) {
      const r = await decide(id, key, body);
      expect({ what, status: r.status, code: r.body.error?.code }).toEqual({ what, status, code });
    }
    // Reading the history: the other tenant and the session's browser credential see nothing.
    expect((await decisions(id, other.test_api_key)).status).toBe(404);
    const asBrowser = await decisions(id, created.body.client_secret);
    expect(asBrowser.status).toBe(403);
    expect((await decisions(id, acme.test_api_key)).body.data).toHaveLength(1); // nothing refused was written
    const approved = await decide(id, acme.test_api_key, { decision: 'approve', reason: 'looks fine' });
    expect(approved.status).toBe(201);
    const again = await decide(id, acme.test_api_key, { decision: 'decline', reason: 'second thoughts' });
    expect(again.status).toBe(409);
  });

  it('reverses a decided session: the outcome flips, the event is sent again, and a reverse naming a stale decision is 409', async () => {
    const created = await create(acme.test_api_key, { tier: 'T2' });
    const id = created.body.id as string;
    await statusOf(id, acme.test_api_key, 'success');
    const [automated] = (await decisions(id, acme.test_api_key)).body.data;
    expect(automated).toMatchObject({ source: 'automated', decision: 'approve', to_status: 'success' });

    const [r1, r2] = await Promise.all([
      decide(id, acme.test_api_key, { decision: 'reverse', reason: 'Fraud found later', reverses: automated.id }),
      decide(id, acme.test_api_key, { decision: 'reverse', reason: 'Fraud found later', reverses: automated.id }),
    ]);
    expect([r1.status, r2.status].sort()).toEqual([201, 409]);
    const reversed = r1.status === 201 ? r1.body : r2.body;
    expect(reversed).toMatchObject({ decision: 'reverse', from_status: 'success', to_status: 'failed' });
    const session = (await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key })).body;
    expect(session).toMatchObject({ status: 'failed', result: { decision: 'declined', badges: [] } });

    // The verification event is sent again, now verification.failed (the first was verification.completed).
    await eventually(async () => receiver.at('/test').find((x) => x.body.includes('"verification.failed"') && x.body.includes(id)));

    // Reversed back (an upheld appeal): success again with the requested tier's badges.
    const back = await decide(id, acme.test_api_key, { decision: 'reverse', reason: 'Appeal upheld', reverses: reversed.id });
    expect(back.status).toBe(201);
    expect(back.body).toMatchObject({ from_status: 'failed', to_status: 'success' });
    const history = (await decisions(id, acme.test_api_key)).body.data;
    expect(history.map((d: { decision: string }) => d.decision)).toEqual(['approve', 'reverse', 'reverse']);
  });

  it('takes the user’s verified claim with a reversal of a live success, and reads the history through GraphQL', async () => {
    const lin = testEmail('lin.decisions');
    await createUser(server, lin);
    const sub = (await signInThroughPages(server, acme, lin, undefined, { scope: 'openid' })).tokens.claims().sub;
    const claim = async () => {
      const { client, tokens } = await signInThroughPages(server, acme, lin, undefined, { scope: 'openid verification' });
      return (await client.userinfo(tokens.access_token!)).service_verification;
    };
    const holder = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };
    const { id } = await captureAndSubmit(server, acme.live_api_key, 'T1', { document: await passportPhoto(passportFields(holder)), create: { user_sub: sub } });
    expect(await decided(server, acme.live_api_key, id, 180_000)).toMatchObject({ status: 'success', livemode: true });
    expect(await claim()).toMatchObject({ badges: ['photo'], tier: 'T1' });

    const live = (await decisions(id, acme.live_api_key)).body.data;
    expect(live).toEqual([expect.objectContaining({ source: 'automated', decision: 'approve', policy_version: expect.stringMatching(/^decide-1\+biometric-/) })]);

    const gql = await graphql(
      server,
      `mutation($id: ID!) { decideSession(id: $id, input: { decision: REVERSE, reason: "Document reported stolen" }) { decision { decision source fromStatus toStatus } session { status result { badges } decisions { decision source } } } }`,
      { id },
      acme.live_api_key,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.decideSession).toEqual({
      decision: { decision: 'REVERSE', source: 'HUMAN', fromStatus: 'SUCCESS', toStatus: 'FAILED' },
      session: { status: 'FAILED', result: { badges: [] }, decisions: [{ decision: 'APPROVE', source: 'AUTOMATED' }, { decision: 'REVERSE', source: 'HUMAN' }] },
    });
    expect(await claim()).toEqual({ badges: [], tier: null, verified_at: null });
  });
});
