import { atMinimumRate } from '../src/vault/minimum-rate';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { SessionEntity } from '../entities';
import { hostedPageOf } from '../src/auth/actor';
import { sendError } from '../http/error-response';
import { jsonBody } from '../http/json-body';
import type { SignedLinks } from '../src/links/signed-links';
import { qrSvg } from '../src/hosted-flow/handoff-qr';
import type { HostedFlowService } from '../src/hosted-flow/hosted-flow.service';
import type { DigitalIdService } from '../src/digital-id/digital-id.service';
import { answeringDomainErrors, restRoute, type RestResult } from './rest-route';

export type HostedApiDeps = { flow: HostedFlowService; links: SignedLinks; mobileAppLink?: string; digitalIds: DigitalIdService };

/**
 * What the express kernel puts in front of the routes: `open` before the one that opens a page from
 * its link (metered per client address), `page` before the others (authenticate the page credential
 * into a `hosted_page` actor, meter it per session, refuse a wrong credential).
 */
export type HostedApiGuards = { open: RequestHandler[]; page: RequestHandler[] };

type PageHandler = (req: Request, session: SessionEntity) => Promise<RestResult>;

/** The hosted page's forms name each field at fault (`error.fields`). */
const FORM_ERRORS = { formFields: true };

const ok = (body: unknown): RestResult => ({ status: 200, body });
const created = (body: unknown): RestResult => ({ status: 201, body });

const noStore = (_req: Request, res: Response, next: NextFunction): void => {
  res.setHeader('cache-control', 'no-store');
  next();
};

/**
 * /v1/hosted: the API the hosted page calls, authenticated by the page credential only (never an
 * API key or a cookie) and metered per session in the `default` bucket. Thin: every rule lives in
 * HostedFlowService.
 */
export function hostedApiRouter(d: HostedApiDeps, guards: HostedApiGuards, router: Router = Router()): Router {
  const { flow } = d;
  const page = [noStore, ...guards.page];
  const onPage = (handler: PageHandler) => restRoute(async (req, ctx) => handler(req, await flow.sessionOfPage(hostedPageOf(ctx.actor), String(req.params.id))), FORM_ERRORS);

  // The link's token is the credential here: the page trades it for its page credential.
  router.post(
    '/sessions/:id/credentials',
    jsonBody,
    noStore,
    ...guards.open,
    answeringDomainErrors(async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      res.status(201).json(await flow.openPage(req.params.id, body.token));
    }),
  );

  router.get('/sessions/:id', ...page, onPage(async (_req, s) => ok(await flow.view(s.id))));
  router.post('/sessions/:id/start', ...page, onPage(async (_req, s) => ok(await flow.start(s))));
  router.post('/sessions/:id/challenge', ...page, onPage(async (_req, s) => created(await flow.challenge(s))));
  router.post('/sessions/:id/submit', ...page, onPage(async (_req, s) => ok(await flow.submit(s))));
  router.post('/sessions/:id/decline', ...page, onPage(async (_req, s) => ok(await flow.declineConsent(s))));
  router.post('/sessions/:id/cancel', ...page, onPage(async (_req, s) => ok(await flow.cancel(s))));
  router.post('/sessions/:id/test-outcome', jsonBody, ...page, onPage(async (req, s) => ok(await flow.chooseTestOutcome(s, req.body))));
  router.put('/sessions/:id/business', jsonBody, ...page, onPage(async (req, s) => ok(await flow.saveBusiness(s, req.body))));
  router.put('/sessions/:id/identity', jsonBody, ...page, onPage(async (req, s) => ok(await flow.confirmIdentity(s, req.body))));
  router.post(
    '/sessions/:id/app-handoff',
    ...page,
    onPage(async (_req, s) => {
      const { link, keep_secret } = await flow.appHandoff(s, d.mobileAppLink ?? 'idverify://chip');
      return ok({ link, qr_svg: await qrSvg(link), ...(keep_secret ? { keep_secret } : {}) });
    }),
  );
  // D24: the digital-ID step; the same device answers here, another device at /v1/digital-id/responses.
  router.post(
    '/sessions/:id/digital-id/requests',
    ...page,
    onPage(async (_req, s) => {
      const request = await d.digitalIds.createRequest(s);
      return created({ ...request, cross_device: { ...request.cross_device, qr_svg: await qrSvg(request.cross_device.link) } });
    }),
  );
  router.post(
    '/sessions/:id/digital-id/requests/:requestId/response',
    jsonBody,
    ...page,
    onPage(async (req, s) => ok(await d.digitalIds.acceptDcApi(s, String(req.params.requestId), req.body))),
  );
  router.get('/sessions/:id/handoff.svg', ...page, onPage(async (_req, s) => ({ status: 200, type: 'image/svg+xml', body: await qrSvg(d.links.url(s.id)) })));
  router.post(
    '/sessions/:id/artifacts',
    ...page,
    onPage(async (req, s) => {
      const q = req.query as Record<string, string | undefined>;
      const length = req.header('content-length');
      const a = await flow.upload(s, {
        class: q.class,
        contentType: req.header('content-type'),
        contentLength: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
        // Left readable on a refusal, so the rest can be drained and a clean error body sent.
        // A client that trickles or stops is cut after 10 s below 16 KiB/s (upload_too_slow).
        body: atMinimumRate(req.iterator({ destroyOnReturn: false })),
        side: q.side,
        step: q.step,
        nonce: q.nonce,
        capturedAt: q.captured_at,
      });
      return created({ id: a.id, class: a.class, content_type: a.contentType, size: a.sizeBytes, sha256: a.sha256, stored_at: a.storedAt.toISOString() });
    }),
  );
  router.use((_req, res) => sendError(res, 'not_found', 'No such endpoint'));
  return router;
}
