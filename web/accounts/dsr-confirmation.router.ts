import { type Request, type Response, type Router } from 'express';
import { pageForm } from '../page-input';
import { refuseAccountInput } from './account-problems';
import type { DelegatedRequestService } from '../../src/data-rights/delegated/delegated-request.service';
import { DECLINED_BY_USER, NOT_CONFIRMED, type DsrJob } from '../../src/data-rights/dsr-job.service';
import { DomainError } from '../../src/errors';
import { DSR_ID_PATTERN } from '../../src/ids';
import { ACCOUNT_PAGES_PATH } from '../../src/oidc/first-party-sign-in';
import { sendProblem } from './account-problems';
import { accountPageOf, type AccountSession } from './account-session';
import { dsrOutcomePage, dsrRequestPage, type DsrOutcome } from './dsr-confirmation-pages';
import { wrap } from './wrap';

function outcomeOf(job: DsrJob): DsrOutcome {
  if (job.status === 'denied') return job.reason === DECLINED_BY_USER ? 'declined' : job.reason === NOT_CONFIRMED ? 'closed' : 'failed';
  return job.status === 'failed' ? 'failed' : 'confirmed';
}

/**
 * The page the delegated request's message links to (docs/data-rights.md, "Delegated requests"):
 * the link's token proves the message was read, the sign-in proves who answers; Confirm and Decline
 * call DelegatedRequestService.confirm and .decline. Someone signed in as another user learns nothing
 * about the request.
 */
export function dsrConfirmationRoutes(router: Router, delegated: DelegatedRequestService, session: AccountSession): void {
  const form = pageForm('8kb', refuseAccountInput);
  const pageOf = (id: string, token: string) => `${ACCOUNT_PAGES_PATH}/requests/${id}?token=${encodeURIComponent(token)}`;

  async function show(req: Request, res: Response, token: unknown, error: string | null): Promise<void> {
    const p = accountPageOf(req);
    const id = String(req.params.id);
    if (!DSR_ID_PATTERN.test(id) || !delegated.isLinkValid(id, token)) return sendProblem(res, p, 'link_invalid');
    const here = pageOf(id, token as string);
    const who = session.who(req);
    if (!who) return session.signInThen(res, { returnTo: here, locale: p.locale });
    let found: Awaited<ReturnType<DelegatedRequestService['forUser']>>;
    try {
      found = await delegated.forUser(who.userId, id, token);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'not_found') return sendProblem(res, p, 'wrong_account', `${ACCOUNT_PAGES_PATH}/sign-in?return=${encodeURIComponent(here)}`);
      throw err;
    }
    const { job, tenantName } = found;
    if (job.status !== 'awaiting_confirmation') return void res.status(200).type('html').send(dsrOutcomePage(p, { outcome: outcomeOf(job), tenantName }));
    res
      .status(error ? 400 : 200)
      .type('html')
      .send(
        dsrRequestPage(p, {
          tenantName,
          confirmBy: job.confirmBy,
          confirmAction: `${ACCOUNT_PAGES_PATH}/requests/${id}/confirm`,
          declineAction: `${ACCOUNT_PAGES_PATH}/requests/${id}/decline`,
          token: token as string,
          formToken: session.formToken(who, `dsr:${id}`),
          error,
        }),
      );
  }

  router.get(
    '/requests/:id',
    wrap((req, res) => show(req, res, req.query.token, null)),
  );

  const answers = { confirm: delegated.confirm.bind(delegated), decline: delegated.decline.bind(delegated) };
  for (const [action, answer] of Object.entries(answers)) {
    router.post(
      `/requests/:id/${action}`,
      form,
      wrap(async (req, res) => {
        const id = String(req.params.id);
        const token: unknown = req.body?.token;
        const p = accountPageOf(req);
        if (!DSR_ID_PATTERN.test(id) || !delegated.isLinkValid(id, token)) return sendProblem(res, p, 'link_invalid');
        const who = session.who(req);
        // Signed out meanwhile (the account cookie lasts minutes): the page signs in again and asks again.
        if (!who) return res.redirect(303, pageOf(id, token as string));
        if (!session.checkFormToken(who, `dsr:${id}`, req.body?.form_token)) return show(req, res, token, p.m.formExpired);
        try {
          await answer(who.userId, id, token);
        } catch (err) {
          if (err instanceof DomainError && err.code === 'not_found') return sendProblem(res, p, 'wrong_account');
          // Answered already, or lapsed: the page shows where it stands.
          if (!(err instanceof DomainError && err.code === 'invalid_state')) throw err;
        }
        res.redirect(303, pageOf(id, token as string));
      }),
    );
  }
}
