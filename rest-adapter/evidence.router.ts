import { Router } from 'express';
import { sendError } from '../http/error-response';
import { sendEvidence } from '../http/send-evidence';
import { DomainError } from '../src/errors';
import { EvidenceAccessService, evidenceError } from '../src/vault/evidence-access.service';

/** GET /v1/evidence/:id?expires=&sig=: the signed link is the credential (no API key). */
export function evidenceRouter(access: EvidenceAccessService): Router {
  const router = Router();
  router.get('/:id', async (req, res, next) => {
    try {
      const q = req.query as Record<string, string | undefined>;
      const opened = await access.open(req.params.id, q.expires, q.sig, req.id);
      res.setHeader('cache-control', 'private, no-store');
      if (opened instanceof DomainError) return sendError(res, opened.code, opened.message);
      if (opened === 'forbidden' || opened === 'gone') {
        const err = evidenceError(opened);
        return sendError(res, err.code, err.message);
      }
      res.setHeader('content-disposition', 'inline');
      res.setHeader('digest', `sha-256=${Buffer.from(opened.sha256, 'hex').toString('base64')}`);
      await sendEvidence(res, opened);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
