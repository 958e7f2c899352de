import { randomBase62 } from '../ids';
import type { Actor } from '../auth/actor';
import { refusalOfTenantRoute } from '../auth/authorization-policy';
import type { GatewaySigningKey } from './gateway-signing-key';

/** How long a Service-Actor header is valid: long enough for one upstream call, too short to replay later. */
export const SERVICE_ACTOR_LIFETIME_SECONDS = 60;
export const SERVICE_ACTOR_HEADER = 'service-actor';

/** What the upstream learns about the caller (docs/decisions.md D18), never the caller's own credential. */
export type ServiceActorClaims = {
  /** The tenant whose key or client called; null for the service's own account portal and for the data-rights jobs. */
  tenant: string | null;
  livemode: boolean | null;
  /** `tenant_key`, `end_user` (a user token) or `service` (the data-rights jobs). */
  actor: 'tenant_key' | 'end_user' | 'service';
  /** The user's subject at the tenant (pairwise) for user tokens; the user id for the data-rights contract. */
  sub?: string;
  /** The OIDC client a user token was issued to. */
  client_id?: string;
  scope: string;
  request_id: string;
};

/**
 * Mints the `Service-Actor` JWT the gateway sends upstream in place of the caller's Authorization:
 * ES256, 60 s, `iss` this service, `aud` the upstream's base URL, keys at /v1/.well-known/gateway-keys
 * (docs/gateway.md says how an upstream verifies it).
 */
export class ServiceActorIssuer {
  constructor(
    private readonly key: GatewaySigningKey,
    private readonly issuer: string,
    readonly audience: string,
  ) {}

  /** The claims for a /v1 caller; a session's client_secret (one browser, one session) is refused. */
  claimsOf(actor: Actor, requestId: string): ServiceActorClaims {
    switch (actor.kind) {
      case 'tenant_key':
        return { tenant: actor.tenantId, livemode: actor.livemode, actor: 'tenant_key', scope: actor.scopes.join(' '), request_id: requestId };
      case 'end_user':
        return { tenant: actor.tenantId, livemode: actor.livemode, actor: 'end_user', sub: actor.sub, client_id: actor.clientId, scope: actor.scopes.join(' '), request_id: requestId };
      case 'session_client':
      case 'hosted_page':
        // The /v1 policy gate refuses it first; the same answer here keeps this function total.
        throw refusalOfTenantRoute({ kind: 'gateway' }, actor)!;
    }
  }

  sign(claims: ServiceActorClaims): string {
    return this.key.sign(claims, { issuer: this.issuer, audience: this.audience, lifetimeSeconds: SERVICE_ACTOR_LIFETIME_SECONDS, jti: randomBase62(20) });
  }

  jwks(): ReturnType<GatewaySigningKey['jwks']> {
    return this.key.jwks();
  }
}
