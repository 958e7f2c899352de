import type { Request, Response } from 'express';
import { escapeHtml } from '../../http/html';
import { fill } from '../i18n';
import { CONSOLE_PATH } from '../../src/oidc/first-party-sign-in';
import { chromeOf, sendConsolePage } from './console-layout';

/** Codes of the console's refusal pages: stable, so support and tests can name them. */
export type ConsoleProblem = 'not_member' | 'link_invalid' | 'expired' | 'wrong_account' | 'sign_in_expired' | 'sign_in_cancelled' | 'sign_in_failed' | 'not_found' | 'invalid_request';

const STATUS: Record<ConsoleProblem, number> = {
  not_member: 403,
  link_invalid: 403,
  expired: 410,
  wrong_account: 403,
  sign_in_expired: 400,
  sign_in_cancelled: 400,
  sign_in_failed: 400,
  not_found: 404,
  invalid_request: 400,
};

/** A refusal page: what happened in words, its code, and a way to sign in again (a fresh sign-in, as another account if need be). */
export function sendConsoleProblem(req: Request, res: Response, code: ConsoleProblem, againHref = `${CONSOLE_PATH}/sign-in`): void {
  const { m } = chromeOf(req, res);
  const again = code === 'not_found' || code === 'invalid_request' ? '' : `<div class="actions"><a class="button button--primary" href="${escapeHtml(againHref)}">${escapeHtml(code === 'wrong_account' || code === 'not_member' ? m.signInOther : m.signInAgain)}</a></div>`;
  sendConsolePage(req, res, {
    status: STATUS[code],
    title: m.problemTitle,
    body: `<h1>${escapeHtml(m.problemTitle)}</h1><p>${escapeHtml(m[`problem_${code}`])}</p><p class="hint" id="problem-code" data-code="${code}">${escapeHtml(fill(m.problemCode, { code }))}</p>${again}`,
  });
}

/** Input the console refuses as /v1 does (web/page-input.ts): a NUL, an unpaired surrogate, a string too long. */
export function refuseConsoleInput(req: Request, res: Response): void {
  sendConsoleProblem(req, res, 'invalid_request');
}
