import type { EndUserActor } from '../auth/actor';
import { isPortalToken } from '../auth/user-token.policy';
import type { Profile } from './profile';

/**
 * What a user token is shown of the account (docs/decisions.md D14, D20; docs/accounts-and-oidc.md, "What
 * a token is shown"). A tenant's client sees the user by its pairwise subject only: never the internal
 * `usr_` id, nor the account's creation time, either of which two tenants could compare to link the
 * same person. It sees a claim only with the scope that grants it (`email`: the address; `profile`:
 * the self-managed profile; `verification`: service_verification), and never the verified fields,
 * objections or pending changes, which are the whole account's. The account portal (the first-party
 * client) sees the whole account.
 */
export type AccountDisclosure = { wholeAccount: boolean; email: boolean; profile: boolean; verification: boolean };

export function disclosureTo(actor: EndUserActor): AccountDisclosure {
  const whole = isPortalToken(actor);
  const granted = (scope: string) => whole || actor.scopes.includes(scope);
  return { wholeAccount: whole, email: granted('email'), profile: granted('profile'), verification: granted('verification') };
}

/** `value`'s fields when they are `shown`, none otherwise (spread into a view). */
export function onlyIf<T extends object>(shown: boolean, value: T): T | Record<string, never> {
  return shown ? value : {};
}

/** `GET` and `PATCH /v1/me/profile` as a token is shown them: the same rule as `GET /v1/me`. */
export type ProfileShown = { sub: string; state: string } & Partial<Omit<Profile, 'state'>>;

export function profileShownTo(actor: EndUserActor, p: Profile): ProfileShown {
  const shown = disclosureTo(actor);
  return {
    sub: actor.sub,
    ...onlyIf(shown.wholeAccount, { id: p.id }),
    ...onlyIf(shown.profile, { display_name: p.display_name, handle: p.handle, public_links: p.public_links, bio: p.bio }),
    ...onlyIf(shown.wholeAccount, { legal_name: p.legal_name, date_of_birth: p.date_of_birth, nationality: p.nationality }),
    state: p.state,
    ...onlyIf(shown.wholeAccount, { objections: p.objections, pending_changes: p.pending_changes }),
  };
}
