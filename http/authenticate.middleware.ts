import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ContextFactory, CredentialKind, RequestContext } from '../src/context';
import { DomainError } from '../src/errors';

/** Who is calling, as `authenticate` found out: a context, or the `unauthorized` error of a wrong credential. */
export type Authentication = { context: RequestContext; error: null } | { context: null; error: DomainError };

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** What `authenticate` found: set before any route of /v1 or /graphql runs, like `req.id` before everything. */
      auth: Authentication;
    }
  }
}

/**
 * The one place an HTTP request is authenticated (/v1 and /graphql alike), before anything else
 * reads its credential: metering charges the actor found here, and each surface answers a wrong
 * credential in its own shape. A missing API credential is an anonymous context, not an error; the
 * hosted page's API (`credential: 'page'`) takes its page credential and nothing else.
 */
export function authenticate(contexts: ContextFactory, credential: CredentialKind = 'api'): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      req.auth = { context: await contexts.create({ authorization: req.header('authorization'), requestId: req.id, credential }), error: null } satisfies Authentication;
      next();
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'unauthorized')) return next(err);
      req.auth = { context: null, error: err } satisfies Authentication;
      next();
    }
  };
}
