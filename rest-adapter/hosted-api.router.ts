import { atMinimumRate } from '../src/capture/minimum-rate';
import { NextFunction, Request, Response, Router } from 'express';
import type { SessionEntity } from '../entities';
import { DomainError, FieldsError } from '../src/errors';
import { sendError } from '../http/error-response';
import { jsonBody } from '../http/json-body';
import type { SignedLinks } from '../src/links/signed-links';
import { qrSvg } from '../src/hosted-flow/handoff-qr';
import type { HostedFlowService } from '../src/hosted-flow/hosted-flow.service';
import { sendRateLimited, setRateLimitHeaders } from '../http/rate-limit.middleware';
import type { RateLimitService, Subject } from '../src/rate-limit/rate-limit.service';

export type HostedApiDeps = { flow: HostedFlowService; links: SignedLinks; limits: RateLimitService | null; publicBaseUrl: string; mobileAppLink?: string };

type Handler = (req: Request, res: Response, session: SessionEntity) => Promise<void>;

/**
 * /v1/hosted: the API the hosted page calls, authenticated by the page credential only (never an
 * API key or a cookie) and metered per session in the `default` bucket. Thin: every rule lives in
 * HostedFlowService.
 */
export function hostedApiRouter(deps: HostedApiDeps): Router {
  const router = Router();
  const { flow } = deps;

  const charge = async (res: Response, subject: Subject): Promise<boolean> => {
    if (!deps.limits) return true;
    const d = await deps.limits.charge('default', subject);
    if (!d.allowed) {
      sendRateLimited(res, d, deps.publicBaseUrl);
      return false;
    }
    setRateLimitHeaders(res, d);
    return true;
  };

  const withSession =
    (handler: Handler) =>
    async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      res.setHeader('cache-control', 'no-store');
      try {
        let session: SessionEntity;
        try {
          session = await flow.authenticate(req.header('authorization'), String(req.params.id));
        } catch (err) {
          // Counted per IP before the credential is believed, as every /v1 path is.
          if (!(await charge(res, { kind: 'ip', ip: req.ip ?? 'unknown' }))) return drain(req);
          throw err;
        }
        if (!(await charge(res, { kind: 'session', id: session.id, tenantId: session.tenantId, livemode: session.livemode }))) return drain(req);
        await handler(req, res, session);
      } catch (err) {
        if (err instanceof FieldsError) return sendError(res, err.code, err.message, err.fields);
        if (err instanceof DomainError) return answerAfterBody(req, res, err);
        next(err);
      }
    };

  router.post('/sessions/:id/credentials', jsonBody, async (req, res, next) => {
    res.setHeader('cache-control', 'no-store');
    try {
      if (!(await charge(res, { kind: 'ip', ip: req.ip ?? 'unknown' }))) return;
      const body = (req.body ?? {}) as Record<string, unknown>;
      res.status(201).json(await flow.openPage(req.params.id, body.token));
    } catch (err) {
      if (err instanceof DomainError) return sendError(res, err.code, err.message);
      next(err);
    }
  });

  router.get('/sessions/:id', withSession(async (_req, res, s) => void res.json(await flow.view(s.id))));
  router.post('/sessions/:id/start', withSession(async (_req, res, s) => void res.json(await flow.start(s))));
  router.post('/sessions/:id/challenge', withSession(async (_req, res, s) => void res.status(201).json(await flow.challenge(s))));
  router.post('/sessions/:id/submit', withSession(async (_req, res, s) => void res.json(await flow.submit(s))));
  router.post('/sessions/:id/decline', withSession(async (_req, res, s) => void res.json(await flow.declineConsent(s))));
  router.post('/sessions/:id/cancel', withSession(async (_req, res, s) => void res.json(await flow.cancel(s))));
  router.put('/sessions/:id/business', jsonBody, withSession(async (req, res, s) => void res.json(await flow.saveBusiness(s, req.body))));
  router.put('/sessions/:id/identity', jsonBody, withSession(async (req, res, s) => void res.json(await flow.confirmIdentity(s, req.body))));
  router.post(
    '/sessions/:id/app-handoff',
    withSession(async (_req, res, s) => {
      const { link, keep_secret } = await flow.appHandoff(s, deps.mobileAppLink ?? 'idverify://chip');
      res.json({ link, qr_svg: await qrSvg(link), ...(keep_secret ? { keep_secret } : {}) });
    }),
  );
  router.get(
    '/sessions/:id/handoff.svg',
    withSession(async (_req, res, s) => void res.type('image/svg+xml').send(await qrSvg(deps.links.url(s.id)))),
  );
  router.post(
    '/sessions/:id/artifacts',
    withSession(async (req, res, s) => {
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
      res.status(201).json({ id: a.id, class: a.class, content_type: a.contentType, size: a.sizeBytes, sha256: a.sha256, stored_at: a.storedAt.toISOString() });
    }),
  );
  router.use((_req, res) => sendError(res, 'not_found', 'No such endpoint'));
  return router;
}

/**
 * Answers an error once the client has finished sending (reading the rest into nothing): a client
 * refused mid-upload then reads a clean error body instead of a reset connection. A body that keeps
 * coming past the largest accepted upload is cut off.
 */
function answerAfterBody(req: Request, res: Response, err: DomainError): void {
  if (req.readableEnded || req.complete || req.method === 'GET') return sendError(res, err.code, err.message);
  if (err.code === 'upload_too_slow') {
    // Draining a body that arrives too slowly would hold the connection anyway: answer and close it.
    res.setHeader('connection', 'close');
    res.once('finish', () => req.destroy());
    return sendError(res, err.code, err.message);
  }
  let discarded = 0;
  const cutOff = 64 * 1024 * 1024;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > cutOff) {
      res.setHeader('connection', 'close');
      sendError(res, err.code, err.message);
      req.destroy();
    }
  });
  req.on('end', () => {
    if (!res.headersSent) sendError(res, err.code, err.message);
  });
  req.resume();
}

function drain(req: Request): void {
  req.resume();
}
