import { jpegBytes, openPage, pageCall, upload, type PageSession } from '../helpers/hosted-client';
import { expectToMatchContract } from '../helpers/openapi-contract';
import { createTenant, eventually, http, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';
import { holdTestClock } from '../helpers/test-clock';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * docs/decisions.md D22 (docs/hosted-flow.md, "Test mode"): a test session reaches its outcome 10 s after
 * creation whatever its page does, and its page may choose the outcome (`approved`, `declined`,
 * `review`) before then. Nothing here measures time: each test waits for the event itself.
 */
let server: TestServer;
let receiver: WebhookReceiver;
let acme: Tenant;

beforeAll(async () => {
  [server, receiver] = await Promise.all([startServer(testEnv({ RATE_LIMIT_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })), WebhookReceiver.start()]);
  acme = await createTenant(server, 'acme');
  const hook = await http(server, 'POST', '/v1/verify/webhooks', {
    key: acme.test_api_key,
    json: { url: receiver.url('/hooks'), events: ['verification.completed', 'verification.failed', 'verification.manual_review'] },
  });
  expect(hook.status).toBe(201);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

type Created = { id: string; hosted_url: string };
const create = async (key: string, json: Record<string, unknown> = {}): Promise<Created> => {
  const r = await http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T1', ...json } });
  expect(r.status).toBe(201);
  return r.body as Created;
};
const choose = (page: PageSession, body: unknown) =>
  http(server, 'POST', `/v1/hosted/sessions/${page.id}/test-outcome`, { headers: { authorization: `Bearer ${page.credential}` }, json: body });
/** The one verification.* webhook of a session, once it has arrived. */
const webhookOf = (sessionId: string) =>
  eventually(async () => {
    const hooks = receiver.at('/hooks').map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
    return hooks.find((e) => e.data.session_id === sessionId);
  }, 60_000);

/**
 * A test session's page with a choice made on it. The choice must come before the session's clock decides it
 * (10 s), so the clock is held while the page is opened and the choice made, then let go (test/helpers/test-clock.ts):
 * the verdict never depends on the machine's speed.
 */
async function chosen(outcome: string, json: Record<string, unknown> = {}): Promise<{ s: Created; page: PageSession; answer: Awaited<ReturnType<typeof choose>> }> {
  for (;;) {
    const s = await create(acme.test_api_key, json);
    const clock = await holdTestClock(server, s.id, 'terminal');
    if (!clock) continue;
    const page = await openPage(server, s);
    const answer = await choose(page, { outcome });
    await clock.release();
    return { s, page, answer };
  }
}

describe('a test session and its hosted page (D22)', () => {
  it('reaches its outcome on its own clock even though its page was opened and started', async () => {
    const s = await create(acme.test_api_key, { metadata: { test_outcome: 'declined' } });
    const page = await openPage(server, s);
    const started = await pageCall(server, page, 'POST', 'start');
    expect(started.status === 200 || started.status === 409).toBe(true); // 409 only if its clock already moved it on
    const hook = await webhookOf(s.id);
    expect(hook).toMatchObject({ type: 'verification.failed', data: { session_id: s.id, status: 'failed', decision: 'declined' } });
    const read = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.test_api_key });
    expect(read.body.status).toBe('failed');
    expect(read.body.result.checks.find((c: { name: string }) => c.name === 'face_match')).toMatchObject({ status: 'fail', score: 0.12 });
    // Its page says so, and takes nothing more.
    expect((await pageCall(server, page, 'GET', '')).body).toMatchObject({ status: 'failed', test_outcome: 'declined' });
    expect((await upload(server, page, { class: 'selfie_image' }, jpegBytes(), 'image/jpeg')).status).toBe(409);
  });

  it('a page still capturing does not hold it back either', async () => {
    const s = await create(acme.test_api_key);
    const page = await openPage(server, s);
    await pageCall(server, page, 'POST', 'start');
    await upload(server, page, { class: 'id_document_image', side: 'data_page' }, jpegBytes(), 'image/jpeg');
    expect(await webhookOf(s.id)).toMatchObject({ type: 'verification.completed', data: { session_id: s.id, status: 'success' } });
  });

  it.each([
    ['approved', 'verification.completed', 'success', 'approved'],
    ['declined', 'verification.failed', 'failed', 'declined'],
    ['review', 'verification.manual_review', 'manual_review', 'review'],
  ])('a choice of %s on the page becomes the test_outcome and the session resolves as it', async (outcome, event, status, decision) => {
    const { s, answer } = await chosen(outcome, { metadata: { test_outcome: outcome === 'approved' ? 'declined' : 'approved', order: 'A-1' } });
    expect(answer.status).toBe(200);
    expectToMatchContract('POST', '/v1/hosted/sessions/{id}/test-outcome', answer);
    expect(answer.body).toMatchObject({ session_id: s.id, livemode: false, test_outcome: outcome, submitted: true });
    expect(answer.body.keep_secret).toMatch(/^hks_[A-Za-z0-9]{32}$/); // this browser may keep the verification, as after a submit
    expect(await webhookOf(s.id)).toMatchObject({ type: event, data: { session_id: s.id, status, decision } });
    const read = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.test_api_key });
    expect(read.body).toMatchObject({ status, metadata: { test_outcome: outcome, order: 'A-1' }, result: { decision } });
  }, 90_000);

  it('refuses a choice that is not one of the three (400, naming the field), and a choice once the session is decided (409)', async () => {
    const s = await create(acme.test_api_key);
    const page = await openPage(server, s);
    for (const body of [{ outcome: 'maybe' }, {}, { outcome: 1 }]) {
      const r = await choose(page, body);
      expect([r.status, r.body.error?.code, r.body.error?.fields?.[0]?.field]).toEqual([400, 'invalid_request', 'outcome']);
    }
    await webhookOf(s.id);
    const late = await choose(page, { outcome: 'declined' });
    expect([late.status, late.body.error?.code]).toEqual([409, 'invalid_state']);
    const read = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.test_api_key });
    expect([read.body.status, read.body.metadata.test_outcome]).toEqual(['success', undefined]);
  });

  it('a live session takes no test outcome (400), and its page is not the test page', async () => {
    const s = await create(acme.live_api_key);
    const page = await openPage(server, s);
    const r = await choose(page, { outcome: 'approved' });
    expect([r.status, r.body.error?.code]).toEqual([400, 'invalid_request']);
    expect((await pageCall(server, page, 'GET', '')).body).toMatchObject({ livemode: true, test_outcome: null });
  });
});
