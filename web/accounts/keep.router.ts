import { type Router } from 'express';
import { pageForm } from '../page-input';
import { refuseAccountInput } from './account-problems';
import { ACCOUNT_PAGES_PATH } from '../../src/oidc/first-party-sign-in';
import { SESSION_ID_PATTERN } from '../../src/ids';
import type { KeepVerificationService } from '../../src/hosted-flow/keep-verification.service';
import { sendProblem } from './account-problems';
import { accountPageOf, type AccountSession } from './account-session';
import { keptPage } from './keep-pages';
import { wrap } from './wrap';

/**
 * "Keep this verification in your account" (docs/accounts-and-oidc.md, "Keeping a verification"):
 * the hosted page's last page posts its session id, page credential and keep secret here (in a new
 * tab); after the check, the person signs in, and the callback (account.router.ts) keeps the session.
 */
export function keepRoutes(router: Router, keep: KeepVerificationService, session: AccountSession): void {
  const form = pageForm('8kb', refuseAccountInput);

  router.post(
    '/keep',
    form,
    wrap(async (req, res) => {
      const p = accountPageOf(req, req.body?.lang);
      const sessionId: unknown = req.body?.session_id;
      const refusal = await keep.check(sessionId, req.body?.credential, req.body?.keep_secret);
      if (refusal) return sendProblem(res, p, refusal);
      const id = sessionId as string; // a credential for exactly this session id passed the check
      session.signInThen(res, { returnTo: `${ACCOUNT_PAGES_PATH}/keep/${id}?lang=${p.locale}`, locale: p.locale, keep: id });
    }),
  );

  router.get(
    '/keep/:id',
    wrap(async (req, res) => {
      const p = accountPageOf(req, req.query.lang);
      const id = String(req.params.id);
      if (!SESSION_ID_PATTERN.test(id)) return sendProblem(res, p, 'not_found');
      const who = session.who(req);
      if (!who) return session.signInThen(res, { returnTo: `${ACCOUNT_PAGES_PATH}/keep/${id}?lang=${p.locale}`, locale: p.locale });
      const kept = await keep.keptBy(id, who.userId);
      if (!kept) return sendProblem(res, p, 'not_found');
      res.status(200).type('html').send(keptPage(p, { tenantName: kept.tenantName }));
    }),
  );
}
