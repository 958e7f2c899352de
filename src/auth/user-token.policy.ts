import { FIRST_PARTY_CLIENT_ID } from '../oidc/first-party-sign-in';
import type { UserTokenScope } from '../oidc/user-token-scopes';
import { DomainError } from '../errors';
import type { Actor, EndUserActor } from './actor';

/** Export and erasure need a sign-in at most this long ago (`auth_time` of the token; the portal asks with max_age). */
export const DEFAULT_REAUTHENTICATION_WINDOW_SECONDS = 600;

/** Each thing a user token can ask for, with the scope it needs; `freshSignIn`: the sign-in must be recent. */
export const USER_CAPABILITIES = {
  read_account: { scope: 'account' },
  write_profile: { scope: 'account:write' },
  /** A tenant's client: one of that tenant's sessions only (the portal: any of the user's). */
  request_review: { scope: 'account:write' },
  export: { scope: 'data_rights', freshSignIn: true },
  erasure: { scope: 'data_rights', freshSignIn: true },
  restriction: { scope: 'data_rights' },
  objection: { scope: 'data_rights' },
  biometric_purge: { scope: 'data_rights' },
  /** Confirming a tenant's delegated request is the user's own act: never the requesting tenant's token. */
  confirm_delegated_request: { scope: 'data_rights' },
} as const satisfies Record<string, { scope: UserTokenScope; freshSignIn?: boolean }>;
export type UserCapability = keyof typeof USER_CAPABILITIES;

/** A refusal that names the scope that was missing (the WWW-Authenticate challenge of RFC 6750 repeats it). */
export class UserTokenRefusal extends DomainError {
  constructor(
    code: 'insufficient_scope' | 'reauthentication_required',
    message: string,
    readonly scope: UserTokenScope,
  ) {
    super(code, message);
  }
}

export const isPortalToken = (actor: EndUserActor): boolean => actor.clientId === FIRST_PARTY_CLIENT_ID;

/**
 * The user of `actor` when it may do `capability`: a user token with its scope (and, for export and
 * erasure, a sign-in within `reauthenticationWindowSeconds`). Anything else is 403 with a code.
 */
export function authorizeUserToken(actor: Actor | null | undefined, capability: UserCapability, reauthenticationWindowSeconds: number, now = Date.now()): EndUserActor {
  if (!actor) throw new DomainError('unauthorized', 'Missing or invalid credential');
  if (actor.kind !== 'end_user') throw new DomainError('user_token_required', "This needs the end user's own access token; tenant API keys are refused here");
  const rule: { scope: UserTokenScope; freshSignIn?: boolean } = USER_CAPABILITIES[capability];
  // data_rights counts only on the portal's tokens, even if a tenant's token somehow carried it.
  const holds = actor.scopes.includes(rule.scope) && (rule.scope !== 'data_rights' || isPortalToken(actor));
  if (!holds) {
    const why = rule.scope === 'data_rights' ? 'only the account portal is granted it' : `ask for it when the user signs in`;
    throw new UserTokenRefusal('insufficient_scope', `This needs scope ${rule.scope} (${why})`, rule.scope);
  }
  if ('freshSignIn' in rule && rule.freshSignIn) {
    const signedInAgo = actor.authTime === null ? Infinity : now / 1000 - actor.authTime;
    if (signedInAgo > reauthenticationWindowSeconds)
      throw new UserTokenRefusal('reauthentication_required', `This needs a sign-in within the last ${reauthenticationWindowSeconds} seconds: sign in again (max_age=${reauthenticationWindowSeconds})`, rule.scope);
  }
  return actor;
}

/** The tenant whose slice of the user the actor reaches; null for the account portal (the whole account). */
export const tenantSliceOf = (actor: EndUserActor): string | null => (isPortalToken(actor) ? null : actor.tenantId);

/** The policy with this deployment's reauthentication window, as routes and resolvers hold it. */
export class UserTokenPolicy {
  constructor(readonly reauthenticationWindowSeconds = DEFAULT_REAUTHENTICATION_WINDOW_SECONDS) {}

  authorize(actor: Actor | null | undefined, capability: UserCapability): EndUserActor {
    return authorizeUserToken(actor, capability, this.reauthenticationWindowSeconds);
  }
}
