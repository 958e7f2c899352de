import express, { Router } from 'express';
import type { DigitalIdService } from '../src/digital-id/digital-id.service';
import { answeringDomainErrors } from './rest-route';

/**
 * The wallet's side of a cross-device digital-ID request (D24, OpenID4VP 1.0): the request object by
 * reference, and the response endpoint taking the `direct_post.jwt` answer. The request id in the path is
 * the capability (unguessable, single use, ten minutes); no credential is read. Thin: DigitalIdService decides.
 */
export function digitalIdRouter(digitalIds: DigitalIdService, router: Router = Router()): Router {
  router.get(
    '/requests/:requestId',
    answeringDomainErrors(async (req, res) => {
      const jwt = await digitalIds.requestObject(String(req.params.requestId));
      res.setHeader('cache-control', 'no-store');
      res.status(200).type('application/oauth-authz-req+jwt').send(jwt);
    }),
  );
  router.post(
    '/responses/:requestId',
    express.urlencoded({ extended: false, limit: '4mb' }),
    answeringDomainErrors(async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const outcome = await digitalIds.acceptDirectPost(String(req.params.requestId), body.response);
      res.setHeader('cache-control', 'no-store');
      // OpenID4VP 8.2: a 200 with a JSON object; the page learns the outcome from the session, the wallet
      // sees whether its presentation was accepted.
      res.status(200).json({ status: outcome.status, ...(outcome.reason ? { reason: outcome.reason } : {}) });
    }),
  );
  return router;
}
