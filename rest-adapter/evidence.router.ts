import { Router } from 'express';
import { answeringDomainErrors } from './rest-route';
import { sendEvidence } from '../http/send-evidence';
import { DomainError } from '../src/errors';
import { EvidenceAccessService, evidenceError } from '../src/vault/evidence-access.service';

/** GET /v1/evidence/:id?expires=&sig=: the signed link is the credential (no API key). */
export function evidenceRouter(access: EvidenceAccessService, router: Router = Router()): Router {
  router.get(
    '/:id',
    answeringDomainErrors(async (req, res) => {
      const q = req.query as Record<string, string | undefined>;
      const opened = await access.open(String(req.params.id), q.expires, q.sig, req.id);
      res.setHeader('cache-control', 'private, no-store');
      if (opened instanceof DomainError) throw opened;
      if (opened === 'forbidden' || opened === 'gone') throw evidenceError(opened);
      res.setHeader('content-disposition', 'inline');
      res.setHeader('digest', `sha-256=${Buffer.from(opened.sha256, 'hex').toString('base64')}`);
      await sendEvidence(res, opened);
    }),
  );
  return router;
}
