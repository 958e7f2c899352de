import fs from 'node:fs';
import { Router } from 'express';
import { presentDsrJob } from './dsr-job.presenter';
import { tenantSliceOf } from '../src/auth/user-token.policy';
import type { DataRights } from '../src/data-rights/data-rights';
import type { DsrJob, DsrJobService } from '../src/data-rights/dsr-job.service';
import { endUserOf } from '../src/data-rights/end-user';
import { jsonBody } from '../http/json-body';
import { answeringDomainErrors, restRoute } from './rest-route';

export type DataRightsRouterDeps = Pick<DataRights, 'exports' | 'exportKey' | 'delegated'> & { dsrJobs: DsrJobService };

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

/** The signed-in user's own requests (after the /v1/me gate of rest-adapter/me.router.ts), and a tenant's delegated ones. */
export function dataRightsRouter(d: DataRightsRouterDeps, v1: Router = Router()): Router {
  const present = async (job: DsrJob) => (job.kind === 'export' ? presentDsrJob(job, await d.exports.delivery(job)) : presentDsrJob(job));
  v1.get(
    '/me/requests',
    restRoute(async (_req, ctx) => {
      const user = endUserOf(ctx);
      const jobs = await d.dsrJobs.list({ userId: user.userId, sliceOfTenant: tenantSliceOf(user) ?? undefined, first: 200 });
      return { status: 200, body: { object: 'list', data: await Promise.all(jobs.map(present)) } };
    }),
  );
  v1.post(
    '/me/requests/:id/confirm',
    // No body: the token travels in the query, exactly as the mailed link carries it.
    restRoute(async (req, ctx) => {
      const job = await d.delegated.confirm(endUserOf(ctx).userId, String(req.params.id), req.query.token);
      return { status: 200, body: await present(job) };
    }),
  );
  v1.post(
    '/me/data-export',
    restRoute(async (_req, ctx) => ({ status: 202, body: await present(await d.exports.request(endUserOf(ctx).userId)) })),
  );
  // `POST /v1/developer/dsr/initiate` (tenant key with dsr:manage).
  v1.post(
    '/developer/dsr/initiate',
    jsonBody,
    restRoute(async (req, ctx) => {
      const { job, callbackSigningSecret } = await d.delegated.initiate(ctx.actor, req.body ?? {});
      return { status: 202, body: { ...presentDsrJob(job), purpose: 'access', callback_url: job.callbackUrl, callback_signing_secret: callbackSigningSecret } };
    }),
  );
  return v1;
}
