import { randomBytes } from 'node:crypto';
import { createOidcTenant, createUser, portalAccessToken, signInThroughPages, startOidcServer, type OidcTenant } from '../helpers/oidc-login';
import { cli, eventually, graphql, http, type TestServer } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Retries wait (issue #24, item 5). A job that fails is retried by pg-boss after its policy's
 * delay, not back to back: a tenant's DSR callback that fails once gets its second attempt no
 * sooner than the first retry's delay (60 s x JOB_RETRY_SCALE). A webhook whose receiver fails
 * gets its next attempt no sooner than the time the attempt log scheduled it for.
 */
const JOB_RETRY_SCALE = 0.1;
/** DSR_CALLBACK_RETRY's first delay (60 s), scaled: with back-off the first retry waits 1 to 2 times this. */
const DSR_CALLBACK_FIRST_DELAY_MS = 60_000 * JOB_RETRY_SCALE;

describe('retries wait', () => {
  let server: TestServer;
  let tenant: OidcTenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // Webhook caps scaled to 3 s for the first retry (60 s x 0.05).
    server = await startOidcServer({ JOB_RETRY_SCALE: String(JOB_RETRY_SCALE), WEBHOOK_RETRY_SCALE: '0.05' });
    tenant = await createOidcTenant(server);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("waits before calling a failing tenant's DSR callback again, and delivers on the retry", async () => {
    receiver.on('/dsr', (n) => (n === 1 ? { status: 503, body: 'down for maintenance' } : { status: 200 }));
    const email = `retry-${randomBytes(4).toString('hex')}@example.com`;
    await createUser(server, email);
    const { tokens } = await signInThroughPages(server, tenant, email, undefined, { resource: true });
    const initiated = await http(server, 'POST', '/v1/developer/dsr/initiate', {
      key: tenant.test_api_key,
      json: { user_sub: tokens.claims().sub, purpose: 'access', delegated_by_tenant: true, callback_url: receiver.url('/dsr') },
    });
    expect(initiated.status).toBe(202);
    const mail = await cli(server.env, ['mail', 'list', '--to', email, '--json']);
    const text = (mail.json!.messages as { text: string }[])[0].text;
    const link = new URL(/https?:\/\/\S+\/requests\/\S+\?token=\S+/.exec(text)![0]);
    // Confirming is the user's own act, through the account portal (D20).
    const portal = (await portalAccessToken(server, email)).tokens.access_token!;
    const confirmed = await http(server, 'POST', `/v1/me/requests/${initiated.body.id}/confirm${link.search}`, { key: portal });
    expect(confirmed.status).toBe(200);

    const [first, second] = await eventually(async () => (receiver.at('/dsr').length >= 2 ? receiver.at('/dsr') : undefined), 60_000, 100);
    expect(second.at - first.at).toBeGreaterThanOrEqual(DSR_CALLBACK_FIRST_DELAY_MS);
    // ...and soon after it is due: the job queue's probe wakes the worker within a poll interval, where the
    // worker's own polling would have waited its 30 s backstop (src/jobs/ready-probe.ts; some slack for a loaded machine).
    expect(second.at - first.at).toBeLessThan(2 * DSR_CALLBACK_FIRST_DELAY_MS + 10_000);
    expect(JSON.parse(second.body)).toMatchObject({ type: 'dsr.completed', data: { dsr_id: initiated.body.id } });
    // Delivered: no third call.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.at('/dsr')).toHaveLength(2);
  });

  it("waits before a failing webhook's next attempt at least until the time its attempt log scheduled", async () => {
    receiver.on('/hook', (n) => (n === 1 ? { status: 500, body: 'boom' } : { status: 204 }));
    const endpoint = await http(server, 'POST', '/v1/verify/webhooks', { key: tenant.test_api_key, json: { url: receiver.url('/hook'), events: ['verification.completed'] } });
    expect(endpoint.status).toBe(201);
    // A test-mode session completes by itself about 10 s after creation.
    const session = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T2', reference_id: 'retry-1' } });
    expect(session.status).toBe(201);

    const [first, second] = await eventually(async () => (receiver.at('/hook').length >= 2 ? receiver.at('/hook') : undefined), 90_000, 50);
    const log = await graphql(server, 'query($e: ID) { webhookAttempts(endpointId: $e) { attempt startedAt durationMs nextRetryAt } }', { e: endpoint.body.id }, tenant.test_api_key);
    const attempt1 = (log.body.data.webhookAttempts as { attempt: number; startedAt: string; durationMs: number; nextRetryAt: string | null }[]).find((a) => a.attempt === 1)!;
    expect(attempt1.nextRetryAt).not.toBeNull();
    // Scheduled from the attempt's answer on (the delay itself, at most the scaled cap, is src/webhooks/retry.schedule.test.ts's:
    // here it would be read through the time a loaded machine takes to record the attempt).
    expect(Date.parse(attempt1.nextRetryAt!)).toBeGreaterThanOrEqual(Date.parse(attempt1.startedAt) + attempt1.durationMs);
    // It came when its log said, not at the next poll.
    expect(second.at).toBeGreaterThanOrEqual(Date.parse(attempt1.nextRetryAt!));
    expect(first.at).toBeLessThan(Date.parse(attempt1.nextRetryAt!));
  });
});
