import type { Request, RequestHandler, Response } from 'express';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { authenticationOf } from '../http/authenticate.middleware';
import { answeringDomainErrors } from '../http/error-response';

export type RestResult = { status: number; body: unknown };
export type RestHandler = (req: Request, ctx: RequestContext) => Promise<RestResult>;

/** Reads the request's context (http/authenticate.middleware.ts built it) and maps domain errors to the error body; anything else reaches the 500 handler. */
export function restRoute(handler: RestHandler): RequestHandler {
  return answeringDomainErrors(async (req: Request, res: Response) => {
    const ctx = authenticationOf(res).context;
    if (!ctx?.actor) throw new DomainError('unauthorized', 'Missing or invalid API key');
    const { status, body } = await handler(req, ctx);
    res.status(status).json(body);
  });
}
