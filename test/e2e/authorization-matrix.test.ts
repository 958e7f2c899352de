import nodeHttp from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from 'pg';
import { answerOf, CREDENTIAL_KINDS, type Answer, type CredentialKind } from '../../src/auth/authorization-policy';
import { policyOf, ROUTE_POLICY } from '../../rest-adapter/v1-routes';
import { dbClient, openPage } from '../helpers/hosted-client';
import { createOidcTenant, createUser, portalAccessToken, signInThroughPages, startOidcServer, testEmail, userAccessToken, TENANT_ACCOUNT_SCOPE, type OidcTenant } from '../helpers/oidc-login';
import { cli, http, loggedLine, type HttpResult, type TestServer } from '../helpers/test-server';

/**
 * The authorization matrix (issue 25 item 3, docs/security.md "Authorization policy"): every route the
 * built server serves, as its own router walk lists it at start, against every kind of credential
 * of src/auth/authorization-policy.ts, on one server with the credentials minted once. Goal: 0 cells
 * differ from the policy, so 0 cross-tenant reads through any credential.
 */

/** Codes that mean the credential was refused (or the resource hidden from it); an allowed cell answers none of them. */
const REFUSAL_CODES = new Set(['unauthorized', 'user_token_required', 'insufficient_scope', 'reauthentication_required', 'not_found']);
/**
 * These change what later cells find (a cancelled session, a deleted endpoint; restriction pauses reads, erasure
 * ends every token): fired last, one at a time, in this order.
 */
const LAST = ['POST /v1/verify/sessions/:id/cancel', 'DELETE /v1/developer/webhooks/:id', 'POST /v1/me/restrict', 'DELETE /v1/me/restrict', 'POST /v1/me/delete'];
const POOL = 8;
/**
 * Export and erasure need a sign-in this recent (REAUTHENTICATION_WINDOW_SECONDS); the stale portal token is older. Short,
 * so the stale token is stale by the end of the setup; the fresh one is signed in again as it ages (freshPortal), and a
 * refusal the token's age explains is fired again with a new one (fire), so the machine's load decides no cell.
 */
const WINDOW_SECONDS = 15;
/** `auth_time` of an access token (a JWT): the sign-in the server measures the window from. */
const authTimeOf = (accessToken: string): number => (JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString('utf8')) as { auth_time: number }).auth_time;
/**
 * Valid bodies, so that a cell shows the authorization answer and not a validation one. Routes not here
 * get `{}` on writes: their refusals come before the body, and an allowed cell answers 400 of its own.
 */
const BODIES: Record<string, unknown> = {
  'POST /v1/verify/sessions': { flow_id: 'default', tier: 'T1', reference_id: 'matrix' },
  'POST /v1/verify/manual-review/:id': { decision: 'approve', reason: 'checked by the matrix' },
  'POST /v1/verify/sessions/:id/decisions': { decision: 'approve', reason: 'checked by the matrix' },
  'POST /v1/verify/webhooks': { url: 'http://127.0.0.1:9/hook', events: ['verification.completed'] },
  'PATCH /v1/developer/tenants/:tenantId/retention': { selfie_image_days: 30 },
  'POST /v1/verify/sessions/:id/retention': { id_document_years: 8, reason: 'asked by the regulator' },
  'POST /v1/me/verifications/:id/review': { reason: 'please look again' },
  'POST /v1/me/object': { processing: 'feed_ranking' },
  'PATCH /v1/me/profile': { bio: 'from the matrix' },
  'POST /v1/admin/bulk-import': { records: [{ flow_id: 'default', tier: 'T0', reference_id: 'matrix-bulk' }] },
  'POST /v1/developer/flows': { name: 'matrix' },
  'PATCH /v1/developer/flows/:id': { display_name: 'Matrix' },
};

type Cell = { route: string; method: string; path: string; credential: CredentialKind; expected: Answer | 'same_as_none' };
type Outcome = Cell & { status: number; code: string | undefined };

const codeOf = (r: HttpResult): string | undefined => (r.body && typeof r.body === 'object' ? ((r.body as { error?: { code?: string }; code?: string }).error?.code ?? (r.body as { code?: string }).code) : undefined);

describe('authorization matrix: every route against every credential', () => {
  let server: TestServer;
  let upstream: nodeHttp.Server;
  let db: Client;
  let acme: OidcTenant;
  let globex: OidcTenant;
  let routes: { method: string; path: string }[];
  const credentials = {} as Record<CredentialKind, string | null>;
  const fixtures: Record<string, string> = {};
  const email = testEmail('matrix');

  beforeAll(async () => {
    // The gateway's upstream (D18): answers every proxied call at once, so an allowed cell is a 200 of its own.
    upstream = nodeHttp.createServer((req, res) => {
      req.resume();
      res.end('{}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    server = await startOidcServer({ LOG_LEVEL: 'debug', RATE_LIMIT_ENABLED: 'false', REAUTHENTICATION_WINDOW_SECONDS: String(WINDOW_SECONDS), SOCIAL_UPSTREAM_URL: upstreamUrl });
    const line = await loggedLine(server, '"routes inventoried"');
    routes = (JSON.parse(line) as { routes: string[] }).routes.map((r) => {
      const [method, path] = r.split(' ');
      return { method, path };
    });
    db = await dbClient(server);
    [acme, globex] = await Promise.all([createOidcTenant(server, 'Acme'), createOidcTenant(server, 'Globex')]);
    const { user_id: userId } = await createUser(server, email);
    // Signed in first: by the end of the setup its sign-in is older than the window.
    const stalePortal = await portalAccessToken(server, email);

    const sessionOf = async (t: OidcTenant) => {
      const r = await http(server, 'POST', '/v1/verify/sessions', { key: t.test_api_key, json: { flow_id: 'default', tier: 'T2', metadata: { test_outcome: 'review' } } });
      if (r.status !== 201) throw new Error(`session: ${r.status} ${r.text}`);
      await db.query('UPDATE sessions SET user_id = $2 WHERE id = $1', [r.body.id, userId]);
      return r.body as { id: string; client_secret: string; hosted_url: string };
    };
    const [sessionA, sessionB] = await Promise.all([sessionOf(acme), sessionOf(globex)]);
    const [pageA, pageB] = await Promise.all([openPage(server, sessionA), openPage(server, sessionB)]);
    const webhook = await http(server, 'POST', '/v1/verify/webhooks', { key: acme.test_api_key, json: { url: 'http://127.0.0.1:9/hook', events: ['verification.completed'] } });
    if (webhook.status !== 201) throw new Error(`webhook: ${webhook.status} ${webhook.text}`);

    const mintKeys = async () => {
      const scoped = await cli(server.env, ['key', 'create', '--tenant', acme.tenant_id, '--mode', 'test', '--scopes', 'sanctions:screen', '--json']);
      const revoked = await cli(server.env, ['key', 'create', '--tenant', acme.tenant_id, '--mode', 'test', '--json']);
      await cli(server.env, ['key', 'revoke', '--key', String(revoked.json!.key_id), '--json']);
      return { scoped: String(scoped.json!.api_key), revoked: String(revoked.json!.api_key) };
    };
    // A grant revoked the way a relying party ends it: its refresh token revoked at the provider.
    const revokedToken = async () => {
      const signIn = await signInThroughPages(server, acme, email, undefined, { resource: true, scope: TENANT_ACCOUNT_SCOPE });
      await signIn.client.revoke(signIn.tokens.refresh_token!, 'refresh_token');
      return signIn.tokens.access_token!;
    };
    const [keys, revokedUserToken, signedInA, userOpenid, userAccount, otherTenantUser] = await Promise.all([
      mintKeys(),
      revokedToken(),
      signInThroughPages(server, acme, email, undefined, { resource: true, scope: TENANT_ACCOUNT_SCOPE }),
      userAccessToken(server, acme, email, { scope: 'openid' }),
      userAccessToken(server, acme, email, { scope: 'openid account' }),
      userAccessToken(server, globex, email),
    ]);

    Object.assign(credentials, {
      none: null,
      test_key: acme.test_api_key,
      live_key: acme.live_api_key,
      other_tenant_key: globex.test_api_key,
      key_without_scope: keys.scoped,
      revoked_key: keys.revoked,
      user_openid: userOpenid,
      user_account: userAccount,
      user_account_write: signedInA.tokens.access_token!,
      other_tenant_user: otherTenantUser,
      portal: null, // minted fresh right before the cells fire
      portal_stale: stalePortal.tokens.access_token!,
      revoked_user_token: revokedUserToken,
      client_secret: sessionA.client_secret,
      other_tenant_client_secret: sessionB.client_secret,
      page_credential: pageA.credential,
      other_tenant_page_credential: pageB.credential,
    } satisfies Record<CredentialKind, string | null>);

    // A delegated request of A for the user, which the portal may confirm (with its mailed token, which this matrix does not hold: 4xx of the route's own).
    const dsr = await http(server, 'POST', '/v1/developer/dsr/initiate', {
      key: acme.test_api_key,
      json: { user_sub: signedInA.tokens.claims().sub, purpose: 'access', delegated_by_tenant: true, callback_url: 'http://127.0.0.1:9/dsr' },
    });
    if (dsr.status !== 202) throw new Error(`dsr: ${dsr.status} ${dsr.text}`);
    const bulk = await http(server, 'POST', '/v1/admin/bulk-import', { key: acme.test_api_key, json: BODIES['POST /v1/admin/bulk-import'] });
    if (bulk.status !== 202) throw new Error(`bulk import: ${bulk.status} ${bulk.text}`);
    const flow = await http(server, 'POST', '/v1/developer/flows', { key: acme.test_api_key, json: { name: 'matrix fixture' } });
    if (flow.status !== 201) throw new Error(`flow: ${flow.status} ${flow.text}`);
    Object.assign(fixtures, { session: sessionA.id, webhook: webhook.body.id, tenant: acme.tenant_id, dsr: dsr.body.id, bulkImport: bulk.body.id, flow: flow.body.id });
    // Stale for the server from here on: its clock is this machine's, and it refuses a sign-in more than the window ago.
    const staleIn = (authTimeOf(stalePortal.tokens.access_token!) + WINDOW_SECONDS + 1) * 1000 - Date.now();
    if (staleIn > 0) await new Promise((r) => setTimeout(r, staleIn));
  });

  afterAll(async () => {
    await db?.end();
    await server?.stop();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  /** A concrete request for a route pattern: A's resources in the path, a JSON body on writes. */
  function concretePath(method: string, path: string): string {
    if (path === '/v1/oidc' && method === 'ALL') return '/v1/oidc/.well-known/openid-configuration';
    if (method === 'ALL') return `${path === '/' ? '' : path}/no-such-route`;
    return path
      .replace(/\/v1\/developer\/webhooks\/:id/, `/v1/developer/webhooks/${fixtures.webhook}`)
      .replace(/\/v1\/me\/requests\/:id/, `/v1/me/requests/${fixtures.dsr}`)
      .replace(/\/v1\/admin\/bulk-import\/:id/, `/v1/admin/bulk-import/${fixtures.bulkImport}`)
      .replace(/\/v1\/developer\/flows\/:id/, `/v1/developer/flows/${fixtures.flow}`)
      .replace(/\/v1\/exports\/:id/, `/v1/exports/${fixtures.dsr}`)
      .replace(/\/v1\/evidence\/:id/, '/v1/evidence/art_0000000000000000')
      .replace(':tenantId', fixtures.tenant)
      .replace(':code', 'not_found')
      .replace(':file', 'main.js')
      .replace(/:id\b/, fixtures.session)
      .replace(/:[A-Za-z]+/g, 'x');
  }

  /** The fresh portal token is signed in again once half the window has passed since its sign-in. */
  let portalMinting: Promise<unknown> | null = null;
  let portalAuthTime = 0;
  const portalAge = (): number => Date.now() / 1000 - portalAuthTime;
  const freshPortal = async (): Promise<void> => {
    portalMinting ??= portalAccessToken(server, email).then((signedIn) => {
      credentials.portal = signedIn.tokens.access_token!;
      portalAuthTime = authTimeOf(credentials.portal);
    });
    try {
      await portalMinting;
    } finally {
      portalMinting = null;
    }
  };

  /**
   * One cell's request. The fresh portal token's `reauthentication_required` counts only while the token was younger than
   * the window when the answer came (the server's clock read it before then): an older one proves nothing, and the cell
   * is fired again with a new sign-in.
   */
  async function fire(cell: Cell): Promise<Outcome> {
    const method = cell.method === 'ALL' ? 'GET' : cell.method;
    for (let attempt = 1; ; attempt++) {
      if (cell.credential === 'portal' && portalAge() > WINDOW_SECONDS / 2) await freshPortal();
      const key = credentials[cell.credential] ?? undefined;
      const signedInAt = portalAuthTime; // of this key: another cell may sign in again meanwhile
      const r = await http(server, method, cell.path, { key, ...(['POST', 'PUT', 'PATCH'].includes(method) ? { json: BODIES[cell.route] ?? {} } : {}) });
      const outcome = { ...cell, status: r.status, code: codeOf(r) };
      const agedOut = cell.credential === 'portal' && outcome.code === 'reauthentication_required' && Date.now() / 1000 - signedInAt > WINDOW_SECONDS;
      if (!agedOut || attempt === 5) return outcome;
    }
  }

  const matches = (o: Outcome, none: Outcome | undefined): boolean => {
    if (o.expected === 'same_as_none') return !!none && o.status === none.status && o.code === none.code;
    // Allowed: past the credential, the route answers on its own (a 2xx, or a 4xx such as 400, 409, or 403 link_invalid of a confirmation without its mailed token).
    if (o.expected.allowed) return o.status < 500 && o.status !== 401 && !(o.code && REFUSAL_CODES.has(o.code));
    return o.status === o.expected.status && o.code === o.expected.code;
  };

  it('every route the server serves has a policy row, and every /v1 row names a served route', () => {
    expect(routes.filter((r) => !policyOf(r.method, r.path))).toEqual([]);
    const served = new Set(routes.map((r) => `${r.method} ${r.path}`));
    expect(ROUTE_POLICY.filter((p) => !served.has(`${p.method} ${p.path}`)).map((p) => `${p.method} ${p.path}`)).toEqual([]);
  });

  it('0 cells differ from the policy', async () => {
    const cells: Cell[] = routes.flatMap((r) =>
      CREDENTIAL_KINDS.map((credential) => ({ route: `${r.method} ${r.path}`, method: r.method, path: concretePath(r.method, r.path), credential, expected: answerOf(policyOf(r.method, r.path)!.guard, credential) })),
    );
    await freshPortal();
    const early = cells.filter((c) => !LAST.includes(c.route));
    const outcomes: Outcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: POOL }, async () => {
        while (next < early.length) outcomes.push(await fire(early[next++]));
      }),
    );
    await freshPortal();
    // Within each, the allowed cells last: after an erasure the user's every token is refused.
    const allowedLast = (c: Cell): number => (c.expected !== 'same_as_none' && c.expected.allowed ? 1 : 0);
    for (const route of LAST) for (const cell of cells.filter((c) => c.route === route).sort((a, b) => allowedLast(a) - allowedLast(b))) outcomes.push(await fire(cell));

    const noneOf = new Map(outcomes.filter((o) => o.credential === 'none').map((o) => [o.route, o]));
    const differing = outcomes
      .filter((o) => !matches(o, noneOf.get(o.route)))
      .map((o) => `${o.route} [${o.credential}]: expected ${o.expected === 'same_as_none' ? `as none (${noneOf.get(o.route)?.status} ${noneOf.get(o.route)?.code})` : o.expected.allowed ? 'allowed' : `${o.expected.status} ${o.expected.code}`}, got ${o.status} ${o.code ?? ''}`);
    process.stdout.write(`authorization matrix: ${outcomes.length} cells over ${routes.length} routes and ${CREDENTIAL_KINDS.length} credentials, ${differing.length} differ\n`);
    expect(differing).toEqual([]);
    expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
  });
});
