import type { Request, RequestHandler, Response } from 'express';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { authenticationOf } from '../http/authenticate.middleware';
import { answeringDomainErrors, type DomainErrorAnswer } from '../http/error-response';

/** A JSON body, or with `type` a body of that content type (an SVG). */
export type RestResult = { status: number; body: unknown; type?: string };
export type RestHandler = (req: Request, ctx: RequestContext) => Promise<RestResult>;

/**
 * Every /v1 route: reads the request's context (http/authenticate.middleware.ts built it), runs the
 * handler's one use case, and answers domain errors through the one mapping of http/error-response.ts;
 * anything else reaches the 500 handler.
 */
export function restRoute(handler: RestHandler, how?: DomainErrorAnswer): RequestHandler {
  return answeringDomainErrors(async (req: Request, res: Response) => {
    const ctx = authenticationOf(res).context;
    if (!ctx?.actor) throw new DomainError('unauthorized', 'Missing or invalid API key');
    const { status, body, type } = await handler(req, ctx);
    if (type) res.status(status).type(type).send(body);
    else res.status(status).json(body);
  }, how);
}
