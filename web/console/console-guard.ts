import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { needsSecondFactor, roleAtLeast, type ConsoleMember, type MemberRole } from '../../src/members/member';
import type { ConsoleServices } from '../../src/members/console-services';
import type { ConsoleSession, SignedInMember } from '../../src/members/console-session.service';
import { CONSOLE_PATH, SIGN_IN_FLOW_TTL_SECONDS, type SignedIn } from '../../src/oidc/first-party-sign-in';
import { fill } from '../i18n';
import { anonymousChrome, sendConsolePage, type ConsoleChrome } from './console-layout';
import { roleName } from './console-messages';
import { sendConsoleProblem } from './console-problems';
import { PageCookies } from '../page-cookies';

export const CONSOLE_COOKIE = 'console_session';
const FLOW_COOKIE = 'console_flow';

/** A path of the console to come back to after signing in: its own pages only, no dot segments, no other host. */
export function isConsolePath(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 500 && /^\/console(\/[A-Za-z0-9_\-/]*)?(\?[A-Za-z0-9_\-=&%.]*)?$/.test(value) && !value.includes('//') && !value.includes('..');
}

/**
 * Who may open a console page (docs/console.md): the console's sign-in cookie names a server-side
 * sign-in (src/members/console-session.service.ts); the guard finds the member it acts as at the
 * chosen tenant, sends reviewers and above through their second factor, and refuses a role below the
 * page's with a page and a 403. On success `res.locals.consoleMember` (ConsoleMember) and
 * `res.locals.consoleChrome` (the shell's header) are set.
 */
export class ConsoleGate {
  private readonly cookies: PageCookies;

  constructor(
    readonly services: ConsoleServices,
    secure: boolean,
  ) {
    this.cookies = new PageCookies(CONSOLE_PATH, secure);
  }

  /** Pages for members of at least `minRole`, past their second factor when their role needs one. */
  requireConsoleMember(minRole: MemberRole): RequestHandler {
    return this.guard(minRole, true);
  }

  /** Signed in at a tenant, second factor or not: the second-factor pages themselves. */
  requireConsoleSignIn(): RequestHandler {
    return this.guard('viewer', false);
  }

  /** The sign-in of this request (set by a guard). */
  sessionOf(res: Response): ConsoleSession {
    return res.locals.consoleSession as ConsoleSession;
  }

  /** The member a guarded page acts as (set by requireConsoleMember). */
  memberOf(res: Response): ConsoleMember {
    return res.locals.consoleMember as ConsoleMember;
  }

  /**
   * A form's anti-forgery token, bound to this sign-in, to the tenant the form was rendered for and to
   * what the form does (e.g. `console:members`): a form rendered at tenant A never acts at tenant B
   * after a switch (issue 40, finding 12).
   */
  formToken(res: Response, purpose: string): string {
    return this.services.signIn.formToken(this.signedInOf(res), this.tenantPurpose(res, purpose));
  }

  checkFormToken(res: Response, purpose: string, given: unknown): boolean {
    return this.services.signIn.checkFormToken(this.signedInOf(res), this.tenantPurpose(res, purpose), given);
  }

  private tenantPurpose(res: Response, purpose: string): string {
    return `${this.sessionOf(res).tenantId ?? 'no-tenant'}|${purpose}`;
  }

  /** Sends the browser to the provider's sign-in pages; it comes back to `returnTo`. `invitation`: a token to accept once signed in. */
  signInThen(req: Request, res: Response, o: { returnTo: string; invitation?: string }): void {
    const { authorizationUrl, flowCookie } = this.services.signIn.begin({ returnTo: o.returnTo, uiLocales: anonymousChrome(req).locale, keep: o.invitation });
    this.cookies.set(res, FLOW_COOKIE, flowCookie, SIGN_IN_FLOW_TTL_SECONDS);
    res.redirect(303, authorizationUrl);
  }

  /** The callback: the flow cookie is spent either way. */
  async completeSignIn(req: Request, res: Response): ReturnType<ConsoleServices['signIn']['complete']> {
    const outcome = await this.services.signIn.complete(this.cookies.read(req, FLOW_COOKIE), req.query as Record<string, unknown>);
    this.cookies.set(res, FLOW_COOKIE, '', 0);
    return outcome;
  }

  async startSession(res: Response, userId: string, member: SignedInMember | null): Promise<void> {
    const { token } = await this.services.sessions.start(userId, member);
    // A session cookie for the browser; the server's row keeps the 12-hour and idle limits.
    this.cookies.set(res, CONSOLE_COOKIE, token, this.services.sessions.limits.absoluteSeconds);
  }

  async currentSession(req: Request): Promise<ConsoleSession | null> {
    return this.services.sessions.resolve(this.cookies.read(req, CONSOLE_COOKIE));
  }

  clearSession(res: Response): void {
    this.cookies.set(res, CONSOLE_COOKIE, '', 0);
  }

  private signedInOf(res: Response): SignedIn {
    const session = this.sessionOf(res);
    return { userId: session.userId, sid: session.id, authTime: null };
  }

  private guard(minRole: MemberRole, secondFactor: boolean): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      void (async () => {
        const session = await this.currentSession(req);
        if (!session) {
          this.clearSession(res);
          return this.signInThen(req, res, { returnTo: req.method === 'GET' && isConsolePath(req.originalUrl) ? req.originalUrl : CONSOLE_PATH });
        }
        res.locals.consoleSession = session;
        if (!session.tenantId) return res.redirect(303, `${CONSOLE_PATH}/tenants`);
        const found = await this.services.members.signedIn(session.tenantId, session.userId);
        const base = anonymousChrome(req);
        if (!found) {
          res.locals.consoleChrome = { ...base, signOutToken: null } satisfies ConsoleChrome;
          return sendConsoleProblem(req, res, 'not_member');
        }
        const member: ConsoleMember = {
          memberId: found.member.id,
          tenantId: found.member.tenantId,
          userId: found.member.userId,
          role: found.member.role,
          email: found.member.email,
          secondFactorVerified: session.secondFactorAt !== null,
        };
        res.locals.consoleMember = member;
        res.locals.consoleChrome = { ...base, tenantName: found.tenantName, member, signOutToken: this.formToken(res, 'console:sign-out'), canSwitchTenant: found.tenantCount > 1 } satisfies ConsoleChrome;
        if (secondFactor && needsSecondFactor(member.role) && !member.secondFactorVerified) {
          const back = req.method === 'GET' && isConsolePath(req.originalUrl) ? `?return=${encodeURIComponent(req.originalUrl)}` : '';
          return res.redirect(303, `${CONSOLE_PATH}/second-factor${back}`);
        }
        if (!roleAtLeast(member.role, minRole)) {
          const m = base.m;
          return sendConsolePage(req, res, {
            status: 403,
            title: m.problemTitle,
            body: `<h1>${m.problemTitle}</h1><p>${fill(m.problem_role_too_low, { role: roleName(m, member.role) })}</p><p class="hint" id="problem-code" data-code="role_too_low">${fill(m.problemCode, { code: 'role_too_low' })}</p>`,
          });
        }
        next();
      })().catch(next);
    };
  }

}

