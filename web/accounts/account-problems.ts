import type { Response } from 'express';
import { problemPage, type AccountProblem, type Page } from './account-pages';

const STATUS: Record<AccountProblem, number> = {
  link_invalid: 403,
  not_finished: 409,
  kept_by_another_account: 409,
  user_restricted: 409,
  sign_in_expired: 400,
  sign_in_cancelled: 400,
  sign_in_failed: 400,
  wrong_account: 403,
  not_found: 404,
};

/** Answers with the refusal page of `code` (never a 500 for a person's mistake or a stale link). */
export function sendProblem(res: Response, p: Omit<Page, 'title'>, code: AccountProblem, signInAgainHref?: string): void {
  res.status(STATUS[code]).type('html').send(problemPage(p, { code, signInAgainHref }));
}
