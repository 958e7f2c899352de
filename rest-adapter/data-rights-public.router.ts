import fs from 'node:fs';
import { Router } from 'express';
import type { DataRights } from '../src/data-rights/data-rights';
import { answeringDomainErrors } from './rest-route';

/**
 * Routes that carry their own credential or none, mounted before the API-key authentication of
 * /v1: the export signing keys (public) and the pre-signed bundle download (the link is the credential).
 */
export function dataRightsPublicRouter(d: Pick<DataRights, 'exports' | 'exportKey'>, r: Router = Router()): Router {
  r.get('/v1/.well-known/export-keys', (_req, res) => {
    res.set('cache-control', 'public, max-age=3600').json(d.exportKey.jwks());
  });
  r.get(
    '/v1/exports/:id/bundle.zip',
    answeringDomainErrors(async (req, res) => {
      const { file, size } = await d.exports.openBundle(String(req.params.id), req.query.expires, req.query.sig);
      res.set({ 'content-type': 'application/zip', 'content-length': String(size), 'content-disposition': 'attachment; filename="data-export.zip"', 'cache-control': 'private, no-store' });
      const stream = fs.createReadStream(file);
      stream.on('error', (err) => res.destroy(err));
      stream.pipe(res);
    }),
  );
  return r;
}
