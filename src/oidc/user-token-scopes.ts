/**
 * What a user token may do (docs/decisions.md D20, docs/accounts-and-oidc.md, "What a user token may do").
 * A tenant's client reaches only that tenant's slice of the user with `account` and
 * `account:write`; whole-account rights need `data_rights`, granted only to the service's own
 * account portal (the first-party client), and export and erasure also a recent sign-in
 * (src/auth/user-token.policy.ts).
 */
export const USER_TOKEN_SCOPES = ['account', 'account:write', 'data_rights'] as const;
export type UserTokenScope = (typeof USER_TOKEN_SCOPES)[number];

/** The scopes a tenant's client may be granted on the /v1 resource; `data_rights` is never among them. */
export const TENANT_CLIENT_USER_SCOPES: readonly UserTokenScope[] = ['account', 'account:write'];
/** The account portal's scopes on the /v1 resource. */
export const PORTAL_USER_SCOPES: readonly UserTokenScope[] = USER_TOKEN_SCOPES;
