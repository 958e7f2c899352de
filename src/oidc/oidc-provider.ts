import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import type { UserService } from '../users/user.service';
import { postgresAdapter } from './oidc-adapter';
import { OIDC_SCOPES, type OidcClients } from './oidc-clients';
import { FIRST_PARTY_CLIENT_ID, firstPartyClient, SIGN_IN_FLOW_TTL_SECONDS } from './first-party-sign-in';
import type { OidcKeys } from './oidc-keys';

/** Where the provider lives under the public base URL (docs/accounts-and-oidc.md). */
export const OIDC_MOUNT = '/v1/oidc';
export const INTERACTION_PATH = '/interaction';
/** The scopes of the /v1 resource's JWT access tokens; the OIDC scopes of a grant that apply to /v1/me. */
export const API_RESOURCE_SCOPES = ['email', 'profile', 'verification'];

export type OidcProviderDeps = { db: DataSource; box: SecretBox; users: UserService; clients: OidcClients; keys: OidcKeys; publicBaseUrl: string; accessTokenTtlSeconds: number };

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
    // The service's own account pages (src/oidc/first-party-sign-in.ts); tenants' clients come from the adapter.
    clients: [firstPartyClient(d.publicBaseUrl, d.box)],
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
      // The first-party client has no tenant and is never issued a token; a subject of its own keeps user_subjects for tenants.
      if (typeof tenantId !== 'string') return d.box.hmac(`first-party-subject:${accountId}`);
      return d.users.subjectFor(accountId, tenantId);
    },
    loadExistingGrant: async (ctx) => {
      const { oidc } = ctx;
      const grantId = oidc.result?.consent?.grantId || oidc.session?.grantIdFor(oidc.client!.clientId);
      const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      if (existing || oidc.client?.clientId !== FIRST_PARTY_CLIENT_ID || !oidc.session?.accountId) return existing;
      // The service's own pages ask only who signed in (scope openid): there is nothing to consent to.
      const grant = new oidc.provider.Grant({ clientId: FIRST_PARTY_CLIENT_ID, accountId: oidc.session.accountId });
      grant.addOIDCScope('openid');
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
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== apiResource) throw new errors.InvalidTarget('unknown resource');
          return { scope: API_RESOURCE_SCOPES.join(' '), audience: apiResource, accessTokenFormat: 'jwt', accessTokenTTL: d.accessTokenTtlSeconds, jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    extraTokenClaims: (_ctx, token) => ('grantId' in token && token.grantId ? { gid: token.grantId } : undefined),
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
      Grant: (_ctx, grant) => (grant.clientId === FIRST_PARTY_CLIENT_ID ? SIGN_IN_FLOW_TTL_SECONDS : 365 * 24 * 3600),
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
