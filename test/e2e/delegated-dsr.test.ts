import { randomBytes } from 'node:crypto';
import { createOidcTenant, createUser, portalAccessToken, signInThroughPages, startOidcServer, type OidcTenant } from '../helpers/oidc-login';
import { cli, graphql, http, type TestServer } from '../helpers/test-server';
import { onReceipt, WebhookReceiver } from '../helpers/webhook-receiver';
import { verifyServiceSignature } from '../../src/webhooks/webhook.signer';

/**
 * POST /v1/developer/dsr/initiate end to end (docs/data-rights.md, "Delegated requests"): the user
 * is asked through the mail outbox, confirms signed in, the export runs, and the tenant's
 * callback receives the link and key, signed like a webhook.
 */
describe('a delegated access request', () => {
  let server: TestServer;
  let tenant: OidcTenant;
  let receiver: WebhookReceiver;
  let token: string;
  let tenantToken: string;
  let sub: string;
  const email = `lin-${randomBytes(4).toString('hex')}@example.com`;

  beforeAll(async () => {
    // JOB_RETRY_SCALE: a callback whose first attempt fails (a loaded machine) is retried within the test's 60 s wait, not 1-2 minutes later.
    server = await startOidcServer({ JOB_RETRY_SCALE: '0.02' });
    tenant = await createOidcTenant(server);
    receiver = await WebhookReceiver.start();
    await createUser(server, email);
    const { tokens } = await signInThroughPages(server, tenant, email, undefined, { resource: true });
    tenantToken = tokens.access_token!;
    sub = tokens.claims().sub;
    // Confirming is the user's own act, through the account portal (D20); the requesting tenant's user token cannot.
    token = (await portalAccessToken(server, email)).tokens.access_token!;
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  const initiate = (key: string, body: Record<string, unknown>) =>
    http(server, 'POST', '/v1/developer/dsr/initiate', { key, json: { user_sub: sub, purpose: 'access', delegated_by_tenant: true, callback_url: receiver.url('/dsr'), ...body } });

  it('refuses a bad purpose, a callback to a special-purpose address, http in live mode and an unknown user', async () => {
    expect((await initiate(tenant.test_api_key, { purpose: 'erasure' })).body.error.code).toBe('invalid_request');
    expect((await initiate(tenant.test_api_key, { delegated_by_tenant: false })).status).toBe(400);
    const metadata = await initiate(tenant.test_api_key, { callback_url: 'http://169.254.169.254/latest' });
    expect(metadata.status).toBe(400);
    expect(metadata.body.error.message).toMatch(/not allowed/);
    const live = await initiate(tenant.live_api_key, { callback_url: 'http://tenant.example/dsr' });
    expect(live.status).toBe(400);
    expect(live.body.error.message).toMatch(/https/);
    expect((await initiate(tenant.test_api_key, { user_sub: 'not-a-subject' })).status).toBe(404);
    expect((await initiate(token, {})).status).toBe(403);
  });

  let dsrId: string;
  let secret: string;
  let link: URL;
  /** The API twin of the page's Confirm: the same token, POSTed with the user's own access token. */
  let confirmApi: string;

  it('answers 202 awaiting_confirmation with the callback secret, and mails the user a confirmation link', async () => {
    const r = await initiate(tenant.test_api_key, {});
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ object: 'dsr_job', kind: 'export', status: 'awaiting_confirmation', delegated: true, purpose: 'access' });
    expect(Date.parse(r.body.confirm_by) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect(r.body.callback_signing_secret).toMatch(/^whsec_/);
    dsrId = r.body.id;
    secret = r.body.callback_signing_secret;
    const mail = await cli(server.env, ['mail', 'list', '--to', email, '--json']);
    const message = (mail.json!.messages as { subject: string; text: string }[])[0];
    expect(message.subject).toContain('Acme Shop');
    // The message links to the confirmation page (test/e2e/account-pages.test.ts drives it); the API route takes the same token.
    link = new URL(/https?:\/\/\S+\/requests\/\S+\?token=\S+/.exec(message.text)![0]);
    expect(link.pathname).toBe(`/account/requests/${dsrId}`);
    confirmApi = `/v1/me/requests/${dsrId}/confirm${link.search}`;
  });

  it("does not run before the user confirms: the tenant key cannot confirm, nor the tenant's user token, nor a forged token", async () => {
    const byTenant = await http(server, 'POST', confirmApi, { key: tenant.test_api_key });
    expect(byTenant.status).toBe(403);
    expect(byTenant.body.error.code).toBe('user_token_required');
    const byTenantUserToken = await http(server, 'POST', confirmApi, { key: tenantToken });
    expect([byTenantUserToken.status, byTenantUserToken.body.error.code]).toEqual([403, 'insufficient_scope']);
    const forged = await http(server, 'POST', `/v1/me/requests/${dsrId}/confirm?token=${'A'.repeat(43)}`, { key: token });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('link_invalid');
    expect(receiver.received.filter((r) => r.path === '/dsr')).toHaveLength(0);
  });

  it('runs once the signed-in user confirms, and POSTs the link and key to the callback, signed like a webhook', async () => {
    const confirmed = await http(server, 'POST', confirmApi, { key: token });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('received');
    const until = Date.now() + 60_000;
    while (!receiver.received.some((r) => r.path === '/dsr') && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    const delivery = receiver.received.find((r) => r.path === '/dsr')!;
    if (!delivery) console.log((await server.settledLogs()).split('\n').filter((l) => /error|fail|dsr/i.test(l)).slice(-15).join('\n'));
    expect(delivery).toBeDefined();
    expect(verifyServiceSignature(delivery.body, delivery.headers['service-signature'] as string, secret, onReceipt(delivery))).toBe(true);
    expect(verifyServiceSignature(delivery.body, delivery.headers['service-signature'] as string, 'whsec_wrong')).toBe(false);
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({ type: 'dsr.completed', livemode: false, data: { dsr_id: dsrId, status: 'completed', purpose: 'access', user_sub: sub } });
    expect(Buffer.from(event.data.document_key, 'base64')).toHaveLength(32);
    const zip = await fetch(event.data.download_url);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
  });

  it('shows the tenant its delegated request through GraphQL dsrJobs, and not to another tenant', async () => {
    const query = { query: '{ dsrJobs { id kind status delegated userId } }' };
    const mine = await http(server, 'POST', '/graphql', { key: tenant.test_api_key, json: query });
    expect(mine.body.data.dsrJobs).toEqual([{ id: dsrId, kind: 'export', status: 'completed', delegated: true, userId: null }]);
    const live = await http(server, 'POST', '/graphql', { key: tenant.live_api_key, json: query });
    expect(live.body.data.dsrJobs).toEqual([]);
    const other = await createOidcTenant(server, 'Other Shop');
    const theirs = await http(server, 'POST', '/graphql', { key: other.test_api_key, json: query });
    expect(theirs.body.data.dsrJobs).toEqual([]);
  });

  it("writes every step of the request to the tenant's audit log, naming no user id", async () => {
    const r = await graphql(server, 'query($s: ID) { auditLog(subjectId: $s, first: 20) { action detail } }', { s: dsrId }, tenant.test_api_key);
    const steps = (r.body.data.auditLog as { action: string; detail: Record<string, unknown> }[]).map((e) => e.action).sort();
    expect(steps).toEqual(['dsr.awaiting_confirmation', 'dsr.completed', 'dsr.in_progress', 'dsr.received']);
    expect(JSON.stringify(r.body.data.auditLog)).not.toMatch(/usr_/);
  });
});
