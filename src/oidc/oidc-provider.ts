import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import type { ServiceVerification, UserState } from '../../entities';
import { postgresAdapter } from './oidc-adapter';
import { OIDC_SCOPES, type OidcClients } from './oidc-clients';
import { consoleClient, FIRST_PARTY_CLIENT_ID, FIRST_PARTY_CLIENT_IDS, firstPartyClient, portalSubjectOf, SIGN_IN_FLOW_TTL_SECONDS } from './first-party-sign-in';
import { PORTAL_USER_SCOPES, TENANT_CLIENT_USER_SCOPES } from './user-token-scopes';
import type { OidcKeys } from './oidc-keys';

/** Where the provider lives under the public base URL (docs/accounts-and-oidc.md). */
export const OIDC_MOUNT = '/v1/oidc';
export const INTERACTION_PATH = '/interaction';
/** The OIDC scopes of a grant that also apply to the /v1 resource's JWT access tokens. */
export const API_RESOURCE_SCOPES = ['email', 'profile', 'verification'];
/**
 * The scopes a client may hold on the /v1 resource (D20): a tenant's client `account` and
 * `account:write`, the account portal also `data_rights`. A scope asked for beyond these is not granted.
 */
export const apiResourceScopesOf = (clientId: string | undefined): string[] => [
  ...API_RESOURCE_SCOPES,
  ...(clientId === FIRST_PARTY_CLIENT_ID ? PORTAL_USER_SCOPES : TENANT_CLIENT_USER_SCOPES),
];

/** The end users the provider signs in and describes: UserService (src/users/user.service.ts). */
export type OidcAccounts = {
  /** The tenant's pairwise subject of the user. */
  subjectFor(userId: string, tenantId: string): Promise<string>;
  findById(id: string): Promise<{ state: UserState; email: string; emailVerified: boolean; displayName: string | null; handle: string | null; serviceVerification: ServiceVerification | null } | null>;
};

export type OidcProviderDeps = {
  db: DataSource;
  box: SecretBox;
  users: OidcAccounts;
  clients: OidcClients;
  keys: OidcKeys;
  publicBaseUrl: string;
  accessTokenTtlSeconds: number;
  /** ACCOUNT_PORTAL_CLIENT_SECRET (src/oidc/first-party-sign-in.ts firstPartyClient). */
  portalClientSecret?: string;
};

export const issuerOf = (publicBaseUrl: string): string => `${publicBaseUrl}${OIDC_MOUNT}`;
export const apiResourceOf = (publicBaseUrl: string): string => `${publicBaseUrl}/v1`;

/**
 * The service as an OpenID Provider (panva's oidc-provider), configured per docs/accounts-and-oidc.md:
 * code flow with PKCE S256 for every client, PAR, refresh rotation, revocation, RP-initiated logout,
 * pairwise subjects per tenant, and JWT access tokens for the /v1 resource (opaque ones, without a
 * resource, for userinfo). Sign-in pages are ours (web/accounts), at `interactions.url`.
 */
export function createOidcProvider(d: OidcProviderDeps): Provider {
  const issuer = issuerOf(d.publicBaseUrl);
  const apiResource = apiResourceOf(d.publicBaseUrl);
  const configuration: Configuration = {
    adapter: postgresAdapter(d.db, d.clients),
    // The service's own account pages and console (src/oidc/first-party-sign-in.ts); tenants' clients come from the adapter.
    clients: [firstPartyClient(d.publicBaseUrl, d.box, d.portalClientSecret), consoleClient(d.publicBaseUrl, d.box)],
    jwks: { keys: d.keys.signingKeys as unknown as NonNullable<Configuration['jwks']>['keys'] },
    cookies: { keys: [d.box.hmac('oidc-cookie-key-1')] },
    scopes: [...OIDC_SCOPES],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['display_name', 'handle'],
      verification: ['service_verification'],
    },
    subjectTypes: ['pairwise'],
    pairwiseIdentifier: async (_ctx, accountId, client) => {
      const tenantId = client.metadata().tenant_id;
      // The first-party client has no tenant; a subject of its own keeps user_subjects for tenants.
      if (typeof tenantId !== 'string') return portalSubjectOf(d.box, accountId);
      return d.users.subjectFor(accountId, tenantId);
    },
    loadExistingGrant: async (ctx) => {
      const { oidc } = ctx;
      const grantId = oidc.result?.consent?.grantId || oidc.session?.grantIdFor(oidc.client!.clientId);
      const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      const clientId = oidc.client?.clientId;
      if (!clientId || !FIRST_PARTY_CLIENT_IDS.includes(clientId) || !oidc.session?.accountId) return existing;
      // The service's own portal and console: nothing to consent to. They ask who signed in and, for the portal's /v1 calls, the account's rights.
      const grant = existing ?? new oidc.provider.Grant({ clientId, accountId: oidc.session.accountId });
      grant.addOIDCScope('openid');
      if (clientId === FIRST_PARTY_CLIENT_ID) grant.addResourceScope(apiResource, PORTAL_USER_SCOPES.join(' '));
      await grant.save();
      return grant;
    },
    sectorIdentifierUriValidate: () => false,
    extraClientMetadata: { properties: ['tenant_id', 'livemode'] },
    findAccount: async (_ctx, id) => {
      const user = await d.users.findById(id);
      if (!user || (user.state !== 'active' && user.state !== 'restricted')) return undefined;
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: user.email,
          email_verified: user.emailVerified,
          display_name: user.displayName,
          handle: user.handle,
          service_verification: user.serviceVerification ?? { badges: [], tier: null, verified_at: null },
        }),
      };
    },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], id_token_signed_response_alg: 'ES256', response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' },
    pkce: { required: () => true },
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: false },
      // Off: a DPoP proof names the URL it was made for, and the token endpoint has two (docs/accounts-and-oidc.md).
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => false,
        getResourceServerInfo: (_ctx, indicator, client) => {
          if (indicator !== apiResource) throw new errors.InvalidTarget('unknown resource');
          return { scope: apiResourceScopesOf(client?.clientId).join(' '), audience: apiResource, accessTokenFormat: 'jwt', accessTokenTTL: d.accessTokenTtlSeconds, jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    // gid: the grant, checked on every /v1 call (revocation); auth_time: when the user signed in, for
    // export and erasure, which need a recent sign-in (D20). The code or refresh token being redeemed knows it.
    extraTokenClaims: (ctx, token) => {
      if (!('grantId' in token && token.grantId)) return undefined;
      const redeemed = ctx.oidc?.entities?.AuthorizationCode ?? ctx.oidc?.entities?.RefreshToken;
      const authTime = redeemed && 'authTime' in redeemed ? redeemed.authTime : undefined;
      return { gid: token.grantId, ...(typeof authTime === 'number' ? { auth_time: authTime } : {}) };
    },
    routes: {
      authorization: '/auth',
      pushed_authorization_request: '/par',
      token: '/token',
      userinfo: '/userinfo',
      jwks: '/jwks',
      revocation: '/revoke',
      end_session: '/logout',
      introspection: '/introspect',
      registration: '/register',
    },
    interactions: { url: (_ctx, interaction) => `${OIDC_MOUNT}${INTERACTION_PATH}/${interaction.uid}` },
    issueRefreshToken: (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: d.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      // The account pages' grants end when their sign-in completes (FirstPartySignIn.complete); an abandoned one soon after.
      Grant: (_ctx, grant) => (FIRST_PARTY_CLIENT_IDS.includes(grant.clientId ?? '') ? SIGN_IN_FLOW_TTL_SECONDS : 365 * 24 * 3600),
      RefreshToken: 30 * 24 * 3600,
      PushedAuthorizationRequest: 60,
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'], requestObjectSigningAlgValues: ['ES256', 'RS256', 'PS256', 'EdDSA'] },
    renderError: (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      ctx.body = `<!doctype html><html lang="en-US"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in error</title><link rel="stylesheet" href="/accounts/accounts.css"></head><body><main class="page"><h1>Something went wrong</h1><p>${esc(String(out.error_description ?? out.error))}</p></main></body></html>`;
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.proxy = true;
  return provider;
}
