import type { Request, Response } from 'express';
import {
  ACCOUNT_PAGES_PATH,
  ACCOUNT_SESSION_TTL_SECONDS,
  SIGN_IN_FLOW_TTL_SECONDS,
  type CompletedSignIn,
  type FirstPartySignIn,
  type SignedIn,
  type SignInRefusal,
} from '../../src/oidc/first-party-sign-in';
import { accountLocale, messagesFor } from './account-messages';
import type { Page } from './account-pages';
import { PageCookies } from '../page-cookies';

const FLOW_COOKIE = 'account_flow';
const ACCOUNT_COOKIE = 'account_session';

/**
 * The account pages' two cookies around FirstPartySignIn (src/oidc/first-party-sign-in.ts): the
 * flow cookie (state and PKCE verifier, sealed) while the person signs in, then the account cookie
 * (who signed in, sealed) for a few minutes. Both HttpOnly, SameSite=Lax (the provider's redirect
 * back is a top-level GET), Secure when the service is served over https, and only sent to /account.
 */
export class AccountSession {
  private readonly cookies: PageCookies;

  constructor(
    private readonly signIn: FirstPartySignIn,
    secure: boolean,
  ) {
    this.cookies = new PageCookies(ACCOUNT_PAGES_PATH, secure);
  }

  who(req: Request): SignedIn | null {
    return this.signIn.signedIn(this.cookies.read(req, ACCOUNT_COOKIE));
  }

  /** Sends the browser to the provider's sign-in pages; it comes back to `returnTo` (a path of the account pages). */
  signInThen(res: Response, o: { returnTo: string; locale: string; keep?: string; maxAge?: number }): void {
    const { authorizationUrl, flowCookie } = this.signIn.begin({ returnTo: o.returnTo, uiLocales: o.locale, keep: o.keep, maxAge: o.maxAge });
    this.cookies.set(res, FLOW_COOKIE, flowCookie, SIGN_IN_FLOW_TTL_SECONDS);
    res.redirect(303, authorizationUrl);
  }

  /** The callback: the flow cookie is spent either way; on success the account cookie names the user. */
  async complete(req: Request, res: Response): Promise<CompletedSignIn | { refused: SignInRefusal }> {
    const outcome = await this.signIn.complete(this.cookies.read(req, FLOW_COOKIE), req.query as Record<string, unknown>);
    this.cookies.set(res, FLOW_COOKIE, '', 0);
    if ('accountCookie' in outcome) this.cookies.set(res, ACCOUNT_COOKIE, outcome.accountCookie, ACCOUNT_SESSION_TTL_SECONDS);
    return outcome;
  }

  /** Forgets who signed in (the account was deleted, or the person signs out of the portal). */
  signOut(res: Response): void {
    this.cookies.set(res, ACCOUNT_COOKIE, '', 0);
  }

  formToken(who: SignedIn, purpose: string): string {
    return this.signIn.formToken(who, purpose);
  }

  checkFormToken(who: SignedIn, purpose: string, given: unknown): boolean {
    return this.signIn.checkFormToken(who, purpose, given);
  }

}


/**
 * A path the account pages may send a browser back to after signing in: one of their own, never
 * another site nor another part of this one. Judged on the path as decoded (up to three layers of
 * percent-encoding; deeper is refused): `..%2F` and `%2e%2e/` are dot segments once a browser or a
 * proxy decodes them, so any `.` or `..` segment, backslash, whitespace or NUL is refused.
 */
export function isAccountPath(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 1000 || !value.startsWith(`${ACCOUNT_PAGES_PATH}/`)) return false;
  let decoded = value;
  for (let layer = 0; ; layer++) {
    if (/[\\\s]|\/\//.test(decoded) || decoded.includes('\u0000')) return false;
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return false;
    }
    if (next === decoded) break;
    if (layer === 3) return false;
    decoded = next;
  }
  const path = decoded.split(/[?#]/)[0];
  return path.startsWith(`${ACCOUNT_PAGES_PATH}/`) && !path.split('/').some((segment) => segment === '.' || segment === '..');
}

/** The page's language: `lang` (what the page before asked for) first, then Accept-Language, then en-US. */
export function accountPageOf(req: Request, lang?: unknown): Omit<Page, 'title'> {
  const locale = accountLocale(typeof lang === 'string' ? lang : undefined, (l) => req.acceptsLanguages(l));
  const m = messagesFor(locale);
  return { locale, m, client: m.accountName, firstParty: true };
}
