import { verifyServiceSignature } from '../../src/webhooks/webhook.signer';
import { jpegBytes, openPage, pageCall, upload } from './hosted-client';
import { holdTestClock } from './test-clock';
import type { Client } from 'pg';
import { createUser, OidcTenant, portalAccessToken, signInThroughPages, TENANT_ACCOUNT_SCOPE } from './oidc-login';
import { http, HttpResult, Tenant, TestServer } from './test-server';
import type { Received, WebhookReceiver } from './webhook-receiver';

export type Delivered = { id: string; type: string; data: Record<string, any>; livemode: boolean; signed: boolean; at: number };

/** Registers an endpoint of `tenant` (test mode) on `path` of the receiver; returns its signing secret. */
export async function registerEndpoint(server: TestServer, receiver: WebhookReceiver, key: string, path: string): Promise<string> {
  const r = await http(server, 'POST', '/v1/verify/webhooks', { key, json: { url: receiver.url(path), events: ['verification.completed'] } });
  if (r.status !== 201) throw new Error(`webhook: ${r.status} ${r.text}`);
  return r.body.signing_secret as string;
}

/** The events one endpoint received, each checked against its signature (D7). */
export function deliveredTo(receiver: WebhookReceiver, path: string, secret: string): Delivered[] {
  return receiver.at(path).map((r: Received) => {
    const e = JSON.parse(r.body) as { id: string; type: string; data: Record<string, any>; livemode: boolean };
    return { ...e, signed: verifyServiceSignature(r.body, r.headers['service-signature'] as string, secret), at: r.at };
  });
}

/**
 * `accessToken`: the account portal's token (scope data_rights, fresh sign-in), which the user's
 * whole-account rights need (D20); `tenantAccessToken`: `tenant`'s token (account, account:write).
 */
export type SignedInUser = { userId: string; sub: string; accessToken: string; tenantAccessToken: string };

/** A new user signed in to `tenant` through the public OIDC flow (the tenant's pairwise subject for them), and to the account portal. */
export async function signedInUser(server: TestServer, tenant: OidcTenant, opts: { email: string }): Promise<SignedInUser> {
  const { user_id: userId } = await createUser(server, opts.email);
  const { tokens } = await signInThroughPages(server, tenant, opts.email, undefined, { resource: true, scope: TENANT_ACCOUNT_SCOPE });
  const portal = await portalAccessToken(server, opts.email);
  return { userId, sub: tokens.claims().sub, accessToken: portal.tokens.access_token!, tenantAccessToken: tokens.access_token! };
}

/**
 * A session bound to the user with captures in the vault: a selfie (biometric) and a document
 * image. The hosted page started it: a live session stays in_progress (the page drives it from then on), a test
 * session goes on along its own clock once its captures are in.
 *
 * Binding: a session is bound to a user when the user signs in at the end of the hosted flow, or
 * when it is created with `user_sub` (docs/accounts-and-oidc.md). Until that path is merged here,
 * the fixture binds the session by writing `sessions.user_id` (what the binding writes).
 */
export async function boundSessionWithCaptures(
  server: TestServer,
  db: Client,
  tenant: Tenant,
  user: Pick<SignedInUser, 'userId'>,
  extra: Record<string, unknown> = {},
  opts: { live?: boolean } = {},
): Promise<string> {
  for (;;) {
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: opts.live ? tenant.live_api_key : tenant.test_api_key, json: { flow_id: 'default', tier: 'T2', ...extra } });
    if (created.status !== 201) throw new Error(`session: ${created.status} ${created.text}`);
    // A test session's own clock takes it to processing 5 s after creation (D22), after which the page's uploads are
    // refused: its clock is held while the page captures, so a loaded machine cannot make them late (issue 47).
    const clock = opts.live ? null : await holdTestClock(server, created.body.id as string, 'processing');
    if (!opts.live && !clock) continue;
    await db.query(`UPDATE sessions SET user_id = $2 WHERE id = $1`, [created.body.id, user.userId]);
    const page = await openPage(server, created.body);
    const started = await pageCall(server, page, 'POST', 'start');
    if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);
    for (const [cls, bytes] of [
      ['selfie_image', jpegBytes(2048, 7)],
      ['id_document_image', jpegBytes(4096, 9)],
    ] as const) {
      const r = await upload(server, page, { class: cls }, bytes, 'image/jpeg');
      if (r.status !== 201) throw new Error(`upload ${cls}: ${r.status} ${r.text}`);
    }
    await clock?.release();
    return created.body.id as string;
  }
}

export function expectProblem(r: HttpResult, code: string, status: number): void {
  if (r.status !== status) throw new Error(`expected ${status} ${code}, got ${r.status} ${r.text}`);
}

/** A GraphQL call with the operator credential (internal tools). */
export function operatorGraphql(server: TestServer, adminKey: string, query: string, variables: Record<string, unknown> = {}): Promise<HttpResult> {
  return http(server, 'POST', '/graphql', { json: { query, variables }, headers: { 'service-admin-key': adminKey } });
}

/** A test-mode session bound to the user and left to its test-mode clock (decided at 10 s by `metadata.test_outcome`); no captures. */
export async function boundSession(server: TestServer, db: Client, tenant: Tenant, user: Pick<SignedInUser, 'userId'>, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T2', ...extra } });
  if (created.status !== 201) throw new Error(`session: ${created.status} ${created.text}`);
  await db.query(`UPDATE sessions SET user_id = $2 WHERE id = $1`, [created.body.id, user.userId]);
  return created.body.id as string;
}
