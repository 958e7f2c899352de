import { Router } from 'express';
import { pageInputGuard } from '../page-input';
import { refuseAccountInput } from './account-problems';
import { setPageSecurityHeaders } from '../../http/security-headers';
import type { DelegatedRequestService } from '../../src/data-rights/delegated/delegated-request.service';
import type { KeepVerificationService } from '../../src/hosted-flow/keep-verification.service';
import { sendProblem } from './account-problems';
import { accountPageOf, isAccountPath, type AccountSession } from './account-session';
import { dsrConfirmationRoutes } from './dsr-confirmation.router';
import { keepRoutes } from './keep.router';
import { portalRoutes, type PortalDeps } from './portal.router';
import { wrap } from './wrap';

export type AccountPagesDeps = { session: AccountSession; keep: KeepVerificationService; delegated: DelegatedRequestService; portal: Omit<PortalDeps, 'session'> };

/**
 * The service's own account pages under /account (docs/accounts-and-oidc.md, "The account pages"):
 * the sign-in callback of the first-party client, keeping a verification, the delegated
 * request's confirmation, and the account portal (web/accounts/portal.router.ts). Server-rendered, no script, the sign-in pages' look and CSP.
 */
export function accountRouter(d: AccountPagesDeps): Router {
  const router = Router();
  router.use((_req, res, next) => {
    setPageSecurityHeaders(res);
    res.setHeader('cache-control', 'no-store');
    next();
  });
  // Every path segment and query parameter under the limits of /v1's input (issue #40 finding 10); forms: `pageForm`.
  router.use(pageInputGuard(refuseAccountInput));

  router.get(
    '/callback',
    wrap(async (req, res) => {
      const outcome = await d.session.complete(req, res);
      if ('refused' in outcome) return sendProblem(res, accountPageOf(req), outcome.refused);
      if (outcome.keep) {
        // The keep began on the hosted page in this browser (its intent came back sealed in the flow cookie).
        const kept = await d.keep.keep(outcome.keep, outcome.userId);
        if ('refused' in kept) return sendProblem(res, accountPageOf(req, outcome.uiLocales), kept.refused);
      }
      res.redirect(303, outcome.returnTo);
    }),
  );

  // "Sign in with another account": a new sign-in that comes back to the page it was asked from.
  router.get('/sign-in', (req, res) => {
    const p = accountPageOf(req);
    if (!isAccountPath(req.query.return)) return sendProblem(res, p, 'link_invalid');
    d.session.signInThen(res, { returnTo: req.query.return, locale: p.locale });
  });

  keepRoutes(router, d.keep, d.session);
  dsrConfirmationRoutes(router, d.delegated, d.session);
  portalRoutes(router, { ...d.portal, session: d.session });
  router.use((req, res) => sendProblem(res, accountPageOf(req), 'not_found'));
  return router;
}
