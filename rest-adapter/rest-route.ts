import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Actor } from '../src/auth/actor';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { answerDomainError, type DomainErrorAnswer } from '../http/error-response';

/** A JSON body, or with `type` a body of that content type (an SVG), or with `type` a stream of it (the bulk import's NDJSON results). */
export type RestResult = { status: number; body: unknown; type?: string } | { status: number; stream: Readable; type: string };
/** The context of a request that carried a valid credential: every /v1 route's. */
export type AuthenticatedContext = RequestContext & { actor: Actor };
export type RestHandler = (req: Request, ctx: AuthenticatedContext) => Promise<RestResult>;

const isAuthenticated = (ctx: RequestContext | null): ctx is AuthenticatedContext => Boolean(ctx?.actor);

/**
 * Every /v1 route: reads the request's context (http/authenticate.middleware.ts built it), runs the
 * handler's one use case, and answers domain errors through the one mapping of http/error-response.ts;
 * anything else reaches the 500 handler.
 */
export function restRoute(handler: RestHandler, how?: DomainErrorAnswer): RequestHandler {
  return answeringDomainErrors(async (req: Request, res: Response) => {
    const ctx = req.auth.context;
    if (!isAuthenticated(ctx)) throw new DomainError('unauthorized', 'Missing or invalid API key');
    const result = await handler(req, ctx);
    if ('stream' in result) return sent(req, res.status(result.status).type(result.type), result.stream);
    if (result.type) res.status(result.status).type(result.type).send(result.body);
    else res.status(result.status).json(result.body);
  }, how);
}

/** `stream` to the client: pipeline waits for the socket to take each chunk, and stops reading when the client goes away. */
async function sent(req: Request, res: Response, stream: Readable): Promise<void> {
  await pipeline(stream, res).catch((err: unknown) => {
    // Headers are out: the client sees a cut stream, the log says why.
    if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log.error({ err }, 'streamed answer failed');
  });
}

/** An async route whose domain errors become the /v1 error body (http/error-response.ts); anything else reaches the 500 handler. */
export function answeringDomainErrors(handler: (req: Request, res: Response) => Promise<void>, how: DomainErrorAnswer = {}) {
  return (req: Request, res: Response, next: NextFunction): void => {
    handler(req, res).catch((err: unknown) => {
      if (err instanceof DomainError) return answerDomainError(req, res, err, how);
      next(err);
    });
  };
}
