import fs from 'node:fs';
import express, { Router } from 'express';
import { presentDsrJob } from '../rest-adapter/dsr-job.presenter';
import { tenantSliceOf } from '../src/auth/user-token.policy';
import type { Container } from '../src/container';
import type { DsrJob } from '../src/data-rights/dsr-job.service';
import { answeringDomainErrors } from './error-response';
import { authenticationOf } from './authenticate.middleware';
import { jsonBody } from './json-body';
import { endUserOf } from './me.routes';

/**
 * Routes that carry their own credential or none, mounted before the API-key authentication of
 * /v1: the export signing keys (public) and the pre-signed bundle download (the link is the credential).
 */
export function dataRightsPublicRouter(c: Container): Router {
  const r = express.Router();
  r.get('/v1/.well-known/export-keys', (_req, res) => {
    res.set('cache-control', 'public, max-age=3600').json(c.dataRights.exportKey.jwks());
  });
  r.get(
    '/v1/exports/:id/bundle.zip',
    answeringDomainErrors(async (req, res) => {
      const { file, size } = await c.dataRights.exports.openBundle(String(req.params.id), req.query.expires, req.query.sig);
      res.set({ 'content-type': 'application/zip', 'content-length': String(size), 'content-disposition': 'attachment; filename="data-export.zip"', 'cache-control': 'private, no-store' });
      const stream = fs.createReadStream(file);
      stream.on('error', (err) => res.destroy(err));
      stream.pipe(res);
    }),
  );
  return r;
}

/** The signed-in user's own requests (after the /v1/me gate of http/me.routes.ts). */
export function meDataRightsRoutes(v1: Router, c: Container): void {
  const present = async (job: DsrJob) => (job.kind === 'export' ? presentDsrJob(job, await c.dataRights.exports.delivery(job)) : presentDsrJob(job));
  v1.get(
    '/me/requests',
    answeringDomainErrors(async (_req, res) => {
      const user = endUserOf(res);
      const jobs = await c.dsrJobs.list({ userId: user.userId, sliceOfTenant: tenantSliceOf(user) ?? undefined, first: 200 });
      res.json({ object: 'list', data: await Promise.all(jobs.map(present)) });
    }),
  );
  v1.post(
    '/me/requests/:id/confirm',
    // No body: the token travels in the query, exactly as the mailed link carries it.
    answeringDomainErrors(async (req, res) => {
      const job = await c.dataRights.delegated.confirm(endUserOf(res).userId, String(req.params.id), req.query.token);
      res.json(await present(job));
    }),
  );
  v1.post(
    '/me/data-export',
    answeringDomainErrors(async (_req, res) => {
      const job = await c.dataRights.exports.request(endUserOf(res).userId);
      res.status(202).json(await present(job));
    }),
  );
}

/** `POST /v1/developer/dsr/initiate` (tenant key with dsr:manage). */
export function delegatedDsrRoutes(v1: Router, c: Container): void {
  v1.post(
    '/developer/dsr/initiate',
    jsonBody,
    answeringDomainErrors(async (req, res) => {
      const { job, callbackSigningSecret } = await c.dataRights.delegated.initiate(authenticationOf(res).context?.actor ?? null, req.body ?? {});
      res.status(202).json({ ...presentDsrJob(job), purpose: 'access', callback_url: job.callbackUrl, callback_signing_secret: callbackSigningSecret });
    }),
  );
}
