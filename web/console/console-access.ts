import type { Request, RequestHandler, Response } from 'express';
import type { ConsoleMember, MemberRole } from '../../src/members/member';
import type { AccountLocale } from '../accounts/account-messages';
import type { PageContent, ReviewPage } from './review-html';
import { reviewMessagesFor } from './review-messages';

/**
 * What the review pages need of the console's sign-in (web/console, docs/console.md): the guard,
 * the signed-in member, form tokens bound to the sign-in, and the page shell.
 */
export type ConsoleAccess = {
  require: (min: MemberRole) => RequestHandler;
  memberOf: (res: Response) => ConsoleMember;
  localeOf: (req: Request, res: Response) => AccountLocale;
  formToken: (req: Request, res: Response, purpose: string) => string;
  checkFormToken: (req: Request, res: Response, purpose: string, given: unknown) => boolean;
  send: (req: Request, res: Response, page: PageContent & { status?: number; active?: 'queue' | 'settings' }) => void;
};

/** The words and reader of a review or settings page. */
export function reviewPageOf(access: ConsoleAccess, req: Request, res: Response): ReviewPage {
  const member = access.memberOf(res);
  const locale = access.localeOf(req, res);
  return { locale, rm: reviewMessagesFor(locale), memberId: member.memberId, role: member.role };
}
