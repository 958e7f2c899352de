import type { Request, Response } from 'express';
import { accountPageOf } from './account-session';
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
  invalid_request: 400,
};

/** Answers with the refusal page of `code` (never a 500 for a person's mistake or a stale link). */
export function sendProblem(res: Response, p: Omit<Page, 'title'>, code: AccountProblem, signInAgainHref?: string): void {
  res.status(STATUS[code]).type('html').send(problemPage(p, { code, signInAgainHref }));
}

/** Input the account pages refuse as /v1 does (web/page-input.ts): a NUL, an unpaired surrogate, a string too long. */
export function refuseAccountInput(req: Request, res: Response): void {
  sendProblem(res, accountPageOf(req), 'invalid_request');
}
