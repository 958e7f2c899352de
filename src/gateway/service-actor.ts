import { randomBase62 } from '../ids';
import { systemMillis, type MillisClock } from '../clock';
import type { Actor } from '../auth/actor';
import { refusalOfTenantRoute } from '../auth/authorization-policy';
import type { GatewaySigningKey } from './gateway-signing-key';

/** How long a Service-Actor header is valid: long enough for one upstream call, too short to replay later. */
export const SERVICE_ACTOR_LIFETIME_SECONDS = 60;
export const SERVICE_ACTOR_HEADER = 'service-actor';
/**
 * A /v1 caller's Service-Actor is signed again once it is this old, so every one sent has at least 30 s left.
 * Signing is most of what proxying costs (35 µs of ES256 against 60-66 µs for the proxy's whole own work,
 * docs/benchmarks.md, "Gateway proxy"); one per caller and half-minute is nearly none.
 */
export const SERVICE_ACTOR_REUSE_SECONDS = 30;
/** Callers whose token is kept at once; past it the oldest is dropped (a flood of callers costs signatures, not memory). */
const REUSED_TOKENS_MAX = 10_000;

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
  /**
   * The data-rights jobs' DSR id. A /v1 call's token carries none: it is reused for the caller's calls of a
   * half-minute, and each call's id is its `request-id` header (docs/decisions.md D26).
   */
  request_id?: string;
};

/**
 * Mints the `Service-Actor` JWT the gateway sends upstream in place of the caller's Authorization:
 * ES256, 60 s, `iss` this service, `aud` the upstream's base URL, keys at /v1/.well-known/gateway-keys
 * (docs/gateway.md says how an upstream verifies it).
 */
export class ServiceActorIssuer {
  /** Each /v1 caller's last token by its claims, oldest first, with when it was signed. */
  private readonly reused = new Map<string, { token: string; signedAtMs: number }>();

  constructor(
    private readonly key: GatewaySigningKey,
    private readonly issuer: string,
    readonly audience: string,
    private readonly nowMs: MillisClock = systemMillis,
  ) {}

  /**
   * The Service-Actor for a /v1 caller: the token signed for the same claims (tenant, mode, actor, subject,
   * client, scopes) within the last SERVICE_ACTOR_REUSE_SECONDS, or a new one. A revoked key or token never gets
   * here (the gateway authenticates every request first); one signed before lives its 60 s, as it always did.
   */
  tokenFor(actor: Actor): string {
    const claims = this.claimsOf(actor);
    const id = JSON.stringify(claims);
    const now = this.nowMs();
    const kept = this.reused.get(id);
    if (kept && now - kept.signedAtMs < SERVICE_ACTOR_REUSE_SECONDS * 1000 && now >= kept.signedAtMs) return kept.token;
    const token = this.sign(claims);
    this.reused.delete(id); // re-inserted last: the Map's order is the age order the cap drops by
    this.reused.set(id, { token, signedAtMs: now });
    if (this.reused.size > REUSED_TOKENS_MAX) this.reused.delete(this.reused.keys().next().value!);
    return token;
  }

  /** The claims for a /v1 caller; a session's client_secret (one browser, one session) is refused. */
  private claimsOf(actor: Actor): ServiceActorClaims {
    switch (actor.kind) {
      case 'tenant_key':
        return { tenant: actor.tenantId, livemode: actor.livemode, actor: 'tenant_key', scope: actor.scopes.join(' ') };
      case 'end_user':
        return { tenant: actor.tenantId, livemode: actor.livemode, actor: 'end_user', sub: actor.sub, client_id: actor.clientId, scope: actor.scopes.join(' ') };
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
