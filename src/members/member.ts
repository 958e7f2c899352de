/**
 * Tenant staff in the console (docs/decisions.md D16, docs/console.md). Roles are ordered: each one may do
 * what the roles below it may. `reviewer` and above see evidence, so they need a second factor.
 */
export const MEMBER_ROLES = ['viewer', 'reviewer', 'admin', 'owner'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A member as the console sees them, once signed in (res.locals.consoleMember). */
export type ConsoleMember = {
  /** `mbr_...` */
  memberId: string;
  tenantId: string;
  userId: string;
  role: MemberRole;
  email: string;
  /** This console sign-in passed its second factor (always false for a viewer who has none). */
  secondFactorVerified: boolean;
};

export const isMemberRole = (value: unknown): value is MemberRole => typeof value === 'string' && (MEMBER_ROLES as readonly string[]).includes(value);

/** True when `role` may do what `min` may (owner > admin > reviewer > viewer). */
export const roleAtLeast = (role: MemberRole, min: MemberRole): boolean => MEMBER_ROLES.indexOf(role) >= MEMBER_ROLES.indexOf(min);

/** Roles that see evidence, and so sign in with a second factor. */
export const needsSecondFactor = (role: MemberRole): boolean => roleAtLeast(role, 'reviewer');

export const MEMBER_ID_PATTERN = /^mbr_[A-Za-z0-9]{16,}$/;
