import { ACCOUNT_PAGES_PATH, CONSOLE_PATH } from '../oidc/first-party-sign-in';
import { DomainError, notFound } from '../errors';
import { tenantKeyRefusal, type Actor, type Scope } from './actor';
import { USER_CAPABILITIES, type UserCapability } from './user-token.policy';

/**
 * The one authorization policy of the HTTP surface (issue 25, item 3): for every route the server
 * serves, who may call it and what every other credential gets. The /v1/me gate reads it
 * (rest-adapter/me-gate.ts), the server refuses to start when a route it serves has no row here
 * (http/route-inventory.ts), docs/security.md is generated from it (`npm run docs:security`), and
 * test/e2e/authorization-matrix.test.ts asserts every cell against a running server.
 *
 * A route record (rest-adapter/route-record.ts) carries its own row; a route that is not a record (pages,
 * the OpenID Provider, the gateway, signed links) has one line in NON_RECORD_V1_POLICY or OUTSIDE_V1_POLICY.
 */

/** What the route takes as its credential; each kind answers every credential by `answerOf` below. */
export type Guard =
  /** A tenant secret key with `scope`. `owns`: what the path names, which belongs to one tenant and one mode (another's is 404, D6). */
  | { kind: 'tenant_key'; scope: Scope; owns: 'session' | 'webhook' | 'tenant' | 'bulk_import' | 'flow' | null }
  /** A tenant key with `scope`, or the `client_secret` of the session the path names (D6: read and watch that session, and submit its chip). */
  | { kind: 'tenant_key_or_client_secret'; scope: Scope; owns: 'session' }
  /** Only the `client_secret` of the session the path names (the chip is read on the user's device, by the mobile SDK). */
  | { kind: 'client_secret'; owns: 'session' }
  /** The end user's JWT access token with the capability's scope (D20, src/auth/user-token.policy.ts). `owns: 'session'`: the path names a verification, which a tenant's token reaches only at that tenant. */
  | { kind: 'user_token'; capability: UserCapability; owns?: 'session' }
  /** The hosted page's credential for the session the path names (D11); nothing else. */
  | { kind: 'page_credential' }
  /** The request carries its own credential (a signed link, the hosted URL's token, an OAuth client's authentication, a sign-in cookie) or needs none: the Authorization header is not read, so every credential gets what no credential gets. */
  | { kind: 'own_credential'; credential: string }
  /** The gateway surfaces (D18): any tenant key or user token, passed upstream as a Service-Actor whose scopes the upstream judges; never a session's client_secret. */
  | { kind: 'gateway' }
  /** The answer for a path no route serves: 404 (401 first under /v1 when no valid credential came). */
  | { kind: 'no_route'; underV1: boolean };

export type RoutePolicy = { method: string; path: string; guard: Guard };

const page: Guard = { kind: 'page_credential' };
const own = (credential: string): Guard => ({ kind: 'own_credential', credential });

/**
 * The /v1 routes that are not route records (rest-adapter/route-record.ts): the records' own rows come
 * from the records (rest-adapter/v1-routes.ts), which join these in routePolicyTable.
 */
export const NON_RECORD_V1_POLICY: readonly RoutePolicy[] = [
  // The hosted page's API (D11)
  { method: 'POST', path: '/v1/hosted/sessions/:id/credentials', guard: own("the hosted URL's token, in the body") },
  { method: 'GET', path: '/v1/hosted/sessions/:id', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/start', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/challenge', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/submit', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/decline', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/cancel', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/test-outcome', guard: page },
  { method: 'PUT', path: '/v1/hosted/sessions/:id/business', guard: page },
  { method: 'PUT', path: '/v1/hosted/sessions/:id/identity', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/app-handoff', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/digital-id/requests', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/digital-id/requests/:requestId/response', guard: page },
  { method: 'GET', path: '/v1/hosted/sessions/:id/handoff.svg', guard: page },
  { method: 'POST', path: '/v1/hosted/sessions/:id/artifacts', guard: page },
  { method: 'ALL', path: '/v1/hosted', guard: { kind: 'no_route', underV1: false } },
  // A wallet answering a cross-device digital-ID request (D24): the request id is the single-use capability
  { method: 'GET', path: '/v1/digital-id/requests/:requestId', guard: own('the digital-ID request id (single use, 10 minutes)') },
  { method: 'POST', path: '/v1/digital-id/responses/:requestId', guard: own('the digital-ID request id and the encrypted answer') },
  // Signed links and public keys (D12, D15)
  { method: 'GET', path: '/v1/evidence/:id', guard: own('the signed link (expires, sig)') },
  { method: 'GET', path: '/v1/exports/:id/bundle.zip', guard: own('the signed link (expires, sig)') },
  { method: 'GET', path: '/v1/.well-known/export-keys', guard: own('none: public keys') },
  // The OpenID Provider (D14): OAuth client authentication, the sign-in pages' cookies
  { method: 'GET', path: '/accounts/accounts.css', guard: own('none: a style sheet') },
  { method: 'GET', path: '/v1/oidc/interaction/:uid', guard: own("the provider's interaction cookie") },
  { method: 'POST', path: '/v1/oidc/interaction/:uid/login', guard: own("the provider's interaction cookie") },
  { method: 'GET', path: '/v1/oidc/interaction/:uid/signup', guard: own("the provider's interaction cookie") },
  { method: 'POST', path: '/v1/oidc/interaction/:uid/signup', guard: own("the provider's interaction cookie") },
  { method: 'POST', path: '/v1/oidc/interaction/:uid/code', guard: own("the provider's interaction cookie") },
  { method: 'POST', path: '/v1/oidc/interaction/:uid/consent', guard: own("the provider's interaction cookie") },
  { method: 'GET', path: '/v1/oidc/interaction/:uid/abort', guard: own("the provider's interaction cookie") },
  { method: 'GET', path: '/v1/oidc/auth', guard: own('none: the authorization request') },
  { method: 'ALL', path: '/v1/oidc', guard: own("OAuth client authentication, or the provider's own token (userinfo)") },
  { method: 'POST', path: '/v1/oauth2/token', guard: own('OAuth client authentication') },
  // The gateway surfaces, proxied to the social upstream (D18)
  { method: 'ALL', path: '/v1/social', guard: { kind: 'gateway' } },
  { method: 'ALL', path: '/v1/profiles', guard: { kind: 'gateway' } },
  { method: 'ALL', path: '/v1/network', guard: { kind: 'gateway' } },
  { method: 'GET', path: '/v1/.well-known/gateway-keys', guard: own('none: public keys') },
  // /v1: no such route
  { method: 'ALL', path: '/v1', guard: { kind: 'no_route', underV1: true } },
];

/** Pages and platform routes outside /v1: none reads the Authorization header (the GraphQL endpoint applies its own per-operation policy, in the resolvers). */
export const OUTSIDE_V1_POLICY: readonly RoutePolicy[] = [
  { method: 'ALL', path: '/graphql', guard: own('the Authorization header, judged per operation by the resolvers (not in this table)') },
  { method: 'GET', path: '/healthz', guard: own('none') },
  { method: 'GET', path: '/readyz', guard: own('none') },
  { method: 'GET', path: '/metrics', guard: own('METRICS_TOKEN as a Bearer token (served here only when it is set)') },
  { method: 'GET', path: '/openapi.yaml', guard: own('none') },
  { method: 'GET', path: '/errors/:code', guard: own('none') },
  { method: 'GET', path: '/hosted/assets/:file', guard: own('none') },
  { method: 'GET', path: '/hosted/:id', guard: own("the hosted URL's token") },
  { method: 'GET', path: '/examples/session-status.html', guard: own('none') },
  { method: 'GET', path: '/examples/graphql-ws.min.js', guard: own('none') },
  { method: 'ALL', path: '/', guard: { kind: 'no_route', underV1: false } },
];

/** Every row that no route record declares: the prefixes mounted with `use` are all here. */
export const NON_RECORD_ROUTE_POLICY: readonly RoutePolicy[] = [...NON_RECORD_V1_POLICY, ...OUTSIDE_V1_POLICY];

/** The whole table and its lookups, once the route records' rows are known (rest-adapter/v1-routes.ts builds it). */
export type RoutePolicyTable = {
  /** Every /v1 row: the records' and the others. */
  v1: readonly RoutePolicy[];
  /** Every row: /v1 and the rest. */
  all: readonly RoutePolicy[];
  /** The policy row of a route as the router declares it, or undefined. */
  policyOf(method: string, path: string): RoutePolicy | undefined;
  /** The policy row of a /v1 request (method and full path), or undefined when no route serves it. HEAD is GET's. */
  ofRequest(method: string, path: string): RoutePolicy | undefined;
  /**
   * The capability a /v1/me request (path relative to /v1) needs, or null when no such route exists: the /v1/me
   * gate (rest-adapter/me-gate.ts) reads it before any route runs. HEAD is GET's.
   */
  capabilityOfMeRoute(method: string, path: string): UserCapability | null;
  /** The /v1/me routes and what each needs (paths relative to /v1). */
  meRoutes: readonly { method: string; path: string; capability: UserCapability }[];
};

const compile = (path: string): RegExp => new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/:[a-z]+/gi, '[^/]+')}/?$`, 'i');
/** A prefix mounted with `use` (the gateway's): the path itself and everything below it. */
const compilePrefix = (path: string): RegExp => new RegExp(`^${path.replace(/[.]/g, '\\.')}(/.*)?$`, 'i');

/** The table of `recordRows` (the route records') and the rows here; a path declared twice stops the start. */
export function routePolicyTable(recordRows: readonly RoutePolicy[]): RoutePolicyTable {
  const v1 = [...recordRows, ...NON_RECORD_V1_POLICY];
  const all = [...v1, ...OUTSIDE_V1_POLICY];
  const twice = all.map((r) => `${r.method} ${r.path}`).filter((k, i, keys) => keys.indexOf(k) !== i);
  if (twice.length) throw new Error(`routes declared twice in the authorization policy: ${twice.join(', ')}`);
  const compiled = v1.filter((r) => r.method !== 'ALL' || r.guard.kind === 'gateway').map((r) => ({ ...r, pattern: r.method === 'ALL' ? compilePrefix(r.path) : compile(r.path) }));
  const meRoutes = v1.flatMap((r) => (r.guard.kind === 'user_token' ? [{ method: r.method, path: r.path.replace(/^\/v1/, ''), capability: r.guard.capability }] : []));
  // As Express matches routes: case-insensitive, an optional trailing slash.
  const compiledMe = meRoutes.map((p) => ({ ...p, pattern: new RegExp(`^${p.path.replace(/:[a-z]+/gi, '[^/]+')}/?$`, 'i') }));
  return {
    v1,
    all,
    meRoutes,
    capabilityOfMeRoute(method, path) {
      const m = method === 'HEAD' ? 'GET' : method;
      return compiledMe.find((p) => p.method === m && p.pattern.test(path))?.capability ?? null;
    },
    policyOf(method, path) {
      const row = all.find((p) => p.method === method && p.path === path);
      if (row) return row;
      if (path === ACCOUNT_PAGES_PATH || path.startsWith(`${ACCOUNT_PAGES_PATH}/`)) return { method, path, guard: own('the account pages\' sign-in cookie') };
      if (path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`)) return { method, path, guard: own("the console's sign-in cookie, the member's role and second factor (web/console/console-guard.ts)") };
      return undefined;
    },
    ofRequest(method, path) {
      const m = method === 'HEAD' ? 'GET' : method;
      return compiled.find((r) => (r.method === m || r.method === 'ALL') && r.pattern.test(path));
    },
  };
}

/** Every kind of credential the matrix tries (issue 25 item 3). The fixtures are those of a tenant A, in test mode. */
export const CREDENTIALS = {
  none: 'no Authorization header',
  test_key: "tenant A's test key (every scope)",
  live_key: "tenant A's live key",
  other_tenant_key: "tenant B's test key",
  key_without_scope: "tenant A's test key with only an unrelated scope (sanctions:screen)",
  revoked_key: "tenant A's revoked test key",
  user_openid: "a user token from A's client with scope openid only",
  user_account: "a user token from A's client with scope account",
  user_account_write: "a user token from A's client with scopes account and account:write",
  other_tenant_user: "the same user's token from B's client (account, account:write)",
  portal: "the account portal's token (data_rights, fresh sign-in)",
  portal_stale: "the account portal's token, signed in longer ago than REAUTHENTICATION_WINDOW_SECONDS (expired for export and erasure)",
  revoked_user_token: "a user token from A's client whose grant was revoked",
  client_secret: "the client_secret of A's session",
  other_tenant_client_secret: "the client_secret of B's session",
  page_credential: "the hosted page credential of A's session",
  other_tenant_page_credential: "the hosted page credential of B's session",
} as const;
export type CredentialKind = keyof typeof CREDENTIALS;
export const CREDENTIAL_KINDS = Object.keys(CREDENTIALS) as CredentialKind[];

/** What a cell expects: `allowed` (the route does its work: a 2xx, or a 4xx of its own such as 400, 409), or a refusal with its status and code. */
export type Answer = { allowed: true } | { allowed: false; status: number; code: string };

const allowed: Answer = { allowed: true };
const refused = (status: number, code: string): Answer => ({ allowed: false, status, code });
const UNAUTHORIZED = refused(401, 'unauthorized');
const NOT_FOUND = refused(404, 'not_found');
const INSUFFICIENT_SCOPE = refused(403, 'insufficient_scope');
const USER_TOKEN_REQUIRED = refused(403, 'user_token_required');
const REAUTHENTICATION_REQUIRED = refused(403, 'reauthentication_required');

const TENANT_USER_SCOPES: Record<'user_openid' | 'user_account' | 'user_account_write' | 'other_tenant_user', readonly string[]> = {
  user_openid: [],
  user_account: ['account'],
  user_account_write: ['account', 'account:write'],
  other_tenant_user: ['account', 'account:write'],
};

/**
 * The answer of a route to a credential. `sameAsNone` is what the route answers without a credential
 * when the header is not its credential (own_credential): every cell must equal it.
 */
export function answerOf(guard: Guard, credential: CredentialKind): Answer | 'same_as_none' {
  switch (guard.kind) {
    case 'own_credential':
      return 'same_as_none';
    case 'no_route':
      if (!guard.underV1) return NOT_FOUND;
      return credential === 'none' || credential === 'revoked_key' || credential === 'revoked_user_token' || credential.endsWith('page_credential') ? UNAUTHORIZED : NOT_FOUND;
    case 'gateway':
      if (credential === 'none' || credential === 'revoked_key' || credential === 'revoked_user_token' || credential.endsWith('page_credential')) return UNAUTHORIZED;
      return credential.endsWith('client_secret') ? INSUFFICIENT_SCOPE : allowed;
    case 'page_credential':
      if (credential === 'page_credential') return allowed;
      // Another session's page credential, like any other bearer here, names no session of this path.
      if (credential === 'other_tenant_page_credential') return NOT_FOUND;
      return UNAUTHORIZED;
    case 'tenant_key':
    case 'tenant_key_or_client_secret':
    case 'client_secret':
      return tenantKeyAnswer(guard, credential);
    case 'user_token':
      return userTokenAnswer(guard, credential);
  }
}

function tenantKeyAnswer(guard: Extract<Guard, { kind: 'tenant_key' | 'tenant_key_or_client_secret' | 'client_secret' }>, credential: CredentialKind): Answer {
  const readsClientSecret = guard.kind !== 'tenant_key';
  if (guard.kind === 'client_secret' && credential.endsWith('_key') && credential !== 'revoked_key') return INSUFFICIENT_SCOPE;
  switch (credential) {
    case 'none':
    case 'revoked_key':
    case 'revoked_user_token':
    case 'page_credential':
    case 'other_tenant_page_credential':
      return UNAUTHORIZED;
    case 'test_key':
      return allowed;
    // Test and live data never mix (D4): a live key finds none of A's test-mode sessions or endpoints; its tenant's own settings and flows it reaches.
    case 'live_key':
      return guard.owns === 'session' || guard.owns === 'webhook' || guard.owns === 'bulk_import' ? NOT_FOUND : allowed;
    case 'other_tenant_key':
      return guard.owns ? NOT_FOUND : allowed;
    case 'key_without_scope':
      return INSUFFICIENT_SCOPE;
    case 'client_secret':
      return readsClientSecret ? allowed : INSUFFICIENT_SCOPE;
    case 'other_tenant_client_secret':
      return readsClientSecret ? NOT_FOUND : INSUFFICIENT_SCOPE;
    case 'user_openid':
    case 'user_account':
    case 'user_account_write':
    case 'other_tenant_user':
    case 'portal':
    case 'portal_stale':
      return INSUFFICIENT_SCOPE;
  }
}

function userTokenAnswer(guard: Extract<Guard, { kind: 'user_token' }>, credential: CredentialKind): Answer {
  const needs = USER_CAPABILITIES[guard.capability].scope;
  switch (credential) {
    case 'none':
    case 'revoked_key':
    case 'revoked_user_token':
    case 'page_credential':
    case 'other_tenant_page_credential':
      return UNAUTHORIZED;
    case 'test_key':
    case 'live_key':
    case 'other_tenant_key':
    case 'key_without_scope':
    case 'client_secret':
    case 'other_tenant_client_secret':
      return USER_TOKEN_REQUIRED;
    case 'portal':
      return allowed;
    case 'portal_stale':
      return 'freshSignIn' in USER_CAPABILITIES[guard.capability] ? REAUTHENTICATION_REQUIRED : allowed;
    case 'user_openid':
    case 'user_account':
    case 'user_account_write':
    case 'other_tenant_user':
      // data_rights is never a tenant client's (D20), whatever it asked for.
      if (needs === 'data_rights' || !TENANT_USER_SCOPES[credential].includes(needs)) return INSUFFICIENT_SCOPE;
      // A tenant's token reaches that tenant's slice only: A's verification is not B's to name.
      return credential === 'other_tenant_user' && guard.owns === 'session' ? NOT_FOUND : allowed;
  }
}

/**
 * Why the resource the path names is not `actor`'s, when the credential alone tells (null: go on; the
 * service judges the rest): a session's client_secret reaches its own session only (`:id`), a tenant key its
 * own tenant (`:tenantId`). The route records ask it before reading the body, so another's resource is 404
 * whatever the body (D6); the services ask the same of every caller, GraphQL's too.
 */
export function refusalOfPathOwner(guard: Guard, actor: Actor | null | undefined, params: Record<string, string | string[] | undefined>): DomainError | null {
  if (!actor || !('owns' in guard)) return null;
  if (guard.owns === 'session' && actor.kind === 'session_client' && params.id !== actor.sessionId) return notFound();
  if (guard.owns === 'tenant' && actor.kind === 'tenant_key' && params.tenantId !== actor.tenantId) return notFound('Tenant');
  return null;
}

/**
 * Why a tenant route refuses `actor` before reading the request (null: go on). The route's service then
 * answers 404 for a resource of another tenant or mode. User-token routes have their own gate (/v1/me).
 */
export function refusalOfTenantRoute(guard: Guard, actor: Actor | null | undefined): DomainError | null {
  if (guard.kind !== 'tenant_key' && guard.kind !== 'tenant_key_or_client_secret' && guard.kind !== 'client_secret' && guard.kind !== 'gateway') return null;
  if (!actor) return new DomainError('unauthorized', 'Missing or invalid credential');
  if (guard.kind === 'gateway') {
    return actor.kind === 'session_client' ? new DomainError('insufficient_scope', "A session's client_secret reaches that session only; /v1/social, /v1/profiles and /v1/network take a tenant key or a user token") : null;
  }
  if (guard.kind === 'client_secret') {
    if (actor.kind === 'session_client') return null;
    return new DomainError('insufficient_scope', "This route takes the session's client_secret (the mobile SDK); tenant API keys and user tokens cannot call it");
  }
  if (guard.kind === 'tenant_key_or_client_secret' && actor.kind === 'session_client') return null;
  return tenantKeyRefusal(actor, guard.scope);
}
