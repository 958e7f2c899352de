import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { generators, Issuer, type BaseClient, type TokenSet } from 'openid-client';
import { CookieJar, passInteraction } from '../../bench/oidc-flow';
import { FIRST_PARTY_CALLBACK_PATH, FIRST_PARTY_CLIENT_ID } from '../../src/oidc/first-party-sign-in';
import { cli, startServer, testEnv, type TestServer } from './test-server';

export { browse, CookieJar, follow, formAction, type Hop } from '../../bench/oidc-flow';

/**
 * End users and OIDC in tests (docs/accounts-and-oidc.md, "Tokens in tests"): a real relying party
 * (panva's openid-client) runs the code flow with PAR and PKCE against the server's public
 * endpoints, and this module drives the sign-in and consent pages over plain HTTP with a cookie
 * jar, exactly as a browser would post them. No back door: the token comes from /v1/oidc/token.
 */

/** The provider's issuer must be the address tests call, so the server gets PUBLIC_BASE_URL on a port chosen here. */
export async function startOidcServer(extra: NodeJS.ProcessEnv = {}): Promise<TestServer> {
  const port = await freePort();
  return startServer(testEnv({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...extra }));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export type OidcTenant = { tenant_id: string; test_api_key: string; live_api_key: string; test_client_id: string; test_client_secret: string; live_client_id: string; live_client_secret: string };
export const TEST_REDIRECT_URI = 'http://127.0.0.1:9/callback';
/** An address unique to this test process: a PostgreSQL server (CI's second pass) keeps the accounts of other files and earlier runs. */
const RUN = randomBytes(4).toString('hex');
export const testEmail = (local: string): string => `${local}.${RUN}@example.com`;

/** A tenant whose test client accepts TEST_REDIRECT_URI (never contacted: the flow stops at the redirect). */
export async function createOidcTenant(server: Pick<TestServer, 'env'>, name = 'Acme Shop', redirectUri = TEST_REDIRECT_URI): Promise<OidcTenant> {
  const t = await cli(server.env, ['tenant', 'create', '--name', name, '--json']);
  if (t.code !== 0 || !t.json) throw new Error(`tenant create failed: ${t.stderr} ${t.stdout}`);
  const tenant = t.json as unknown as OidcTenant;
  const r = await cli(server.env, ['client', 'redirect-uris', '--tenant', tenant.tenant_id, '--mode', 'test', '--add', redirectUri, '--add-post-logout', redirectUri, '--json']);
  if (r.code !== 0) throw new Error(`client redirect-uris failed: ${r.stderr} ${r.stdout}`);
  return tenant;
}

export async function createUser(server: Pick<TestServer, 'env'>, email: string, password = 'correct horse battery'): Promise<{ user_id: string; email: string }> {
  const r = await cli(server.env, ['user', 'create', '--email', email, '--password', password, '--json']);
  if (r.code !== 0 || !r.json) throw new Error(`user create failed: ${r.stderr} ${r.stdout}`);
  return r.json as { user_id: string; email: string };
}

/** A relying party for one tenant's test client, discovered from the server. */
export async function relyingParty(server: Pick<TestServer, 'url'>, tenant: Pick<OidcTenant, 'test_client_id' | 'test_client_secret'>, redirectUri = TEST_REDIRECT_URI): Promise<BaseClient> {
  const issuer = await Issuer.discover(`${server.url}/v1/oidc/.well-known/openid-configuration`);
  return new issuer.Client({
    client_id: tenant.test_client_id,
    client_secret: tenant.test_client_secret,
    redirect_uris: [redirectUri],
    response_types: ['code'],
    id_token_signed_response_alg: 'ES256',
  });
}

export type SignIn = {
  tokens: TokenSet;
  /** The JWT access token for <PUBLIC_BASE_URL>/v1 (what /v1/me takes), when `resource` was asked for. */
  client: BaseClient;
  jar: CookieJar;
};

/**
 * Signs `email` in to `tenant`'s test client through the pages and returns the tokens.
 * `resource: true` asks for the /v1 resource, so `tokens.access_token` is the JWT /v1/me takes;
 * without it the access token is the opaque one userinfo takes.
 */
export async function signInThroughPages(
  server: Pick<TestServer, 'url'>,
  tenant: Pick<OidcTenant, 'test_client_id' | 'test_client_secret'>,
  email: string,
  password = 'correct horse battery',
  opts: { scope?: string; resource?: boolean; jar?: CookieJar; uiLocales?: string } = {},
): Promise<SignIn> {
  const client = await relyingParty(server, tenant);
  const jar = opts.jar ?? new CookieJar();
  const verifier = generators.codeVerifier();
  const state = generators.state();
  const resource = `${server.url}/v1`;
  const params = {
    // Asking for the /v1 resource is asking to use /v1/me: the account scopes come with it unless the test says otherwise.
    scope: opts.scope ?? (opts.resource ? TENANT_ACCOUNT_SCOPE : 'openid email profile verification offline_access'),
    code_challenge: generators.codeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'consent',
    ...(opts.resource ? { resource } : {}),
    ...(opts.uiLocales ? { ui_locales: opts.uiLocales } : {}),
  };
  const par = await client.pushedAuthorizationRequest(params);
  const back = await passInteraction(jar, client.authorizationUrl({ request_uri: par.request_uri }), TEST_REDIRECT_URI, email, password);
  const callback = client.callbackParams(back);
  const tokens = await client.callback(TEST_REDIRECT_URI, callback, { code_verifier: verifier, state }, opts.resource ? { exchangeBody: { resource } } : undefined);
  return { tokens, client, jar };
}

/** What a tenant's app asks for to read and change the user's account at the tenant (D20). */
export const TENANT_ACCOUNT_SCOPE = 'openid email profile verification offline_access account account:write';

/**
 * A /v1/me access token (JWT, resource <PUBLIC_BASE_URL>/v1) for a user of `tenant`, through the
 * public sign-in flow, with `scope` (default: TENANT_ACCOUNT_SCOPE); creates the user first when `create` is set.
 */
export async function userAccessToken(server: TestServer, tenant: OidcTenant, email: string, opts: { create?: boolean; password?: string; scope?: string } = {}): Promise<string> {
  if (opts.create) await createUser(server, email, opts.password);
  const { tokens } = await signInThroughPages(server, tenant, email, opts.password, { resource: true, scope: opts.scope ?? TENANT_ACCOUNT_SCOPE });
  return tokens.access_token!;
}

/**
 * A /v1 token of the account portal (the first-party client, D20): the test plays the portal's
 * backend, which knows its client secret (ACCOUNT_PORTAL_CLIENT_SECRET of the server's env): a fresh
 * sign-in (prompt=login, max_age=600) through the pages, the redirect to /account/callback stopped
 * before the browser follows it, and the code redeemed at the public token endpoint.
 */
export async function portalAccessToken(server: Pick<TestServer, 'url' | 'env'>, email: string, password = 'correct horse battery', jar = new CookieJar()): Promise<{ tokens: TokenSet; jar: CookieJar }> {
  const issuer = await Issuer.discover(`${server.url}/v1/oidc/.well-known/openid-configuration`);
  const redirectUri = `${server.url}${FIRST_PARTY_CALLBACK_PATH}`;
  const client = new issuer.Client({
    client_id: FIRST_PARTY_CLIENT_ID,
    client_secret: server.env.ACCOUNT_PORTAL_CLIENT_SECRET,
    redirect_uris: [redirectUri],
    response_types: ['code'],
    id_token_signed_response_alg: 'ES256',
  });
  const verifier = generators.codeVerifier();
  const state = generators.state();
  const resource = `${server.url}/v1`;
  const url = client.authorizationUrl({
    scope: 'openid account account:write data_rights',
    resource,
    code_challenge: generators.codeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'login',
    max_age: 600,
  });
  const back = await passInteraction(jar, url, redirectUri, email, password);
  const tokens = await client.callback(redirectUri, client.callbackParams(back), { code_verifier: verifier, state, max_age: 600 }, { exchangeBody: { resource } });
  return { tokens, jar };
}
