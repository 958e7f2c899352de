import { profileShownTo } from '../src/users/account-disclosure';
import { Router } from 'express';
import type { DataRightsServices } from '../src/data-rights/data-rights.services';
import type { ReviewCase } from '../src/data-rights/review-case.service';
import { notFound } from '../src/errors';
import { endUserOf } from '../src/data-rights/end-user';
import { tenantSliceOf } from '../src/auth/user-token.policy';
import { SESSION_ID_PATTERN } from '../src/ids';
import { jsonBody } from '../http/json-body';
import { objectWithFields } from './request-validation';
import { restRoute } from './rest-route';
import { presentDsrJob as present } from './dsr-job.presenter';

/** A body that may be absent: no body (or an empty one) is `{}`; a body is JSON like everywhere else. */
const optionalJsonBody: typeof jsonBody = (req, res, next) => (req.headers['content-length'] === '0' || (!req.headers['content-type'] && !req.headers['transfer-encoding']) ? next() : jsonBody(req, res, next));

export const presentReviewCase = (c: ReviewCase) => ({
  id: c.id,
  verification_id: c.sessionId,
  status: c.status,
  decision: c.decision,
  requested_at: c.createdAt.toISOString(),
  decided_at: c.decidedAt?.toISOString() ?? null,
  dsr_job_id: c.dsrJobId,
});

/**
 * /v1/me data-rights routes (docs/data-rights.md): the /v1/me gate (rest-adapter/me.router.ts) has checked
 * the token against the policy table (src/auth/user-token.policy.ts); each calls its service. Requests answer 202 with their DSR job; the profile 200.
 */
export function meDataRightsRouter(dr: DataRightsServices, router: Router = Router()): Router {
  router.post(
    '/me/delete',
    optionalJsonBody,
    restRoute(async (_req, ctx) => ({ status: 202, body: present(await dr.erasure.requestDeletion(endUserOf(ctx).userId)) })),
  );
  router.post(
    '/me/restrict',
    optionalJsonBody,
    restRoute(async (_req, ctx) => ({ status: 202, body: present(await dr.restriction.restrict(endUserOf(ctx).userId), { action: 'restrict' }) })),
  );
  router.delete(
    '/me/restrict',
    restRoute(async (_req, ctx) => ({ status: 202, body: present(await dr.restriction.lift(endUserOf(ctx).userId), { action: 'lift' }) })),
  );
  router.post(
    '/me/object',
    jsonBody,
    restRoute(async (req, ctx) => {
      const user = endUserOf(ctx);
      const body = objectWithFields(req.body, ['processing']);
      return { status: 202, body: present(await dr.objections.object(user.userId, body.processing)) };
    }),
  );
  router.delete(
    '/me/biometrics',
    restRoute(async (_req, ctx) => ({ status: 202, body: present(await dr.biometrics.request(endUserOf(ctx).userId)) })),
  );
  router.post(
    '/me/verifications/:id/review',
    jsonBody,
    restRoute(async (req, ctx) => {
      const user = endUserOf(ctx);
      const id = verificationIdParam(req.params.id);
      const body = objectWithFields(req.body, ['reason']);
      const { job, reviewCase } = await dr.reviews.open(user.userId, id, body.reason, tenantSliceOf(user));
      return { status: 202, body: present(job, { review_case: presentReviewCase(reviewCase) }) };
    }),
  );
  router.get(
    '/me/verifications/:id/review',
    restRoute(async (req, ctx) => {
      const user = endUserOf(ctx);
      const cases = await dr.reviews.forUser(user.userId, verificationIdParam(req.params.id), tenantSliceOf(user));
      return { status: 200, body: { data: cases.map(presentReviewCase) } };
    }),
  );
  router.get(
    '/me/profile',
    restRoute(async (_req, ctx) => {
      const user = endUserOf(ctx);
      return { status: 200, body: profileShownTo(user, await dr.profiles.profile(user.userId)) };
    }),
  );
  router.patch(
    '/me/profile',
    jsonBody,
    restRoute(async (req, ctx) => {
      const user = endUserOf(ctx);
      return { status: 200, body: profileShownTo(user, await dr.profiles.update(user.userId, req.body)) };
    }),
  );
  return router;
}

function verificationIdParam(id: string | string[] | undefined): string {
  if (typeof id !== 'string' || !SESSION_ID_PATTERN.test(id)) throw notFound('Verification');
  return id;
}
