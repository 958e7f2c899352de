import { DomainError } from '../errors';

/**
 * `sanctions:screen`: the sanctionsLists and screenIdentity queries, meant for a tenant's internal tools.
 * `dsr:manage`: delegated data requests (initiate, and read the ones the tenant initiated).
 * `retention:manage`: the tenant's retention settings and its retention runs (docs/retention-and-audit.md).
 * `flows:manage`: the tenant's flows, as the console manages them (docs/hosted-flow.md, "Flows").
 */
export const ALL_SCOPES = [
  'sessions:read',
  'sessions:write',
  'sessions:review',
  'webhooks:manage',
  'keys:manage',
  'sanctions:screen',
  'dsr:manage',
  'retention:manage',
  'flows:manage',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

/** A tenant backend calling with a secret key. */
export type TenantKeyActor = {
  kind: 'tenant_key';
  tenantId: string;
  keyId: string;
  livemode: boolean;
  scopes: readonly Scope[];
};

/** A browser holding one session's client_secret: it may read and watch that session, nothing else. */
export type SessionClientActor = {
  kind: 'session_client';
  tenantId: string;
  sessionId: string;
  livemode: boolean;
};

/**
 * An end user holding their own JWT access token for the /v1 resource (docs/accounts-and-oidc.md):
 * issued to `clientId` (a tenant's OIDC client, or the account portal's, whose `tenantId` is null),
 * under the grant `grantId`, with `scopes`; `authTime`: when the user signed in (seconds), if known.
 * What it may do: src/auth/user-token.policy.ts (D20).
 */
export type EndUserActor = {
  kind: 'end_user';
  userId: string;
  clientId: string;
  tenantId: string | null;
  /** The token's subject: the tenant's pairwise subject of the user, or the portal's own. */
  sub: string;
  /** The mode of the tenant client that was issued the token; null for the account portal. */
  livemode: boolean | null;
  scopes: readonly string[];
  grantId: string | null;
  authTime: number | null;
};

/**
 * The hosted page of one session, holding the page credential it minted from its link
 * (src/hosted-flow/page-credentials.ts). Only /v1/hosted takes this credential, and it acts on its
 * own session's page there, nothing else.
 */
export type HostedPageActor = {
  kind: 'hosted_page';
  session: { id: string; tenantId: string; livemode: boolean };
};

export type Actor = TenantKeyActor | SessionClientActor | EndUserActor | HostedPageActor;

/** The page of a /v1/hosted request: that surface takes the page credential and no other. */
export function hostedPageOf(actor: Actor | null): HostedPageActor {
  if (actor?.kind !== 'hosted_page') throw new DomainError('unauthorized', 'Missing or invalid page credential');
  return actor;
}

/** Which tenant's data, in which mode, an actor may see. */
export type TenantScope = { tenantId: string; livemode: boolean };

export const isScope = (s: string): s is Scope => (ALL_SCOPES as readonly string[]).includes(s);

/**
 * Why `actor` may not do what needs a tenant key with `scope`, or null when it may: the one rule
 * behind requireTenantKey (resolvers, services) and the /v1 policy gate (src/auth/authorization-policy.ts).
 */
export function tenantKeyRefusal(actor: Actor | null | undefined, scope: Scope): DomainError | null {
  if (!actor) return new DomainError('unauthorized', 'Missing or invalid credential');
  if (actor.kind !== 'tenant_key') return new DomainError('insufficient_scope', actor.kind === 'end_user' ? 'This operation needs a tenant API key' : 'A session client_secret cannot perform this operation');
  if (!actor.scopes.includes(scope)) return new DomainError('insufficient_scope', `This key lacks the ${scope} scope`);
  return null;
}
