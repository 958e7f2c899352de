import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ContextFactory, CredentialKind, RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { answerDomainError } from './error-response';

/** Who is calling, as `authenticate` found out: a context, or the `unauthorized` error of a wrong credential. */
export type Authentication = { context: RequestContext; error: null } | { context: null; error: DomainError };

/**
 * The one place an HTTP request is authenticated (/v1 and /graphql alike), before anything else
 * reads its credential: metering charges the actor found here, and each surface answers a wrong
 * credential in its own shape. A missing API credential is an anonymous context, not an error; the
 * hosted page's API (`credential: 'page'`) takes its page credential and nothing else.
 */
export function authenticate(contexts: ContextFactory, credential: CredentialKind = 'api'): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.auth = { context: await contexts.create({ authorization: req.header('authorization'), requestId: req.id, credential }), error: null } satisfies Authentication;
      next();
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'unauthorized')) return next(err);
      res.locals.auth = { context: null, error: err } satisfies Authentication;
      next();
    }
  };
}

/** The authentication `authenticate` left for this request. */
export const authenticationOf = (res: Response): Authentication => res.locals.auth as Authentication;

/** Answers the wrong credential `authenticate` found, once metering has charged the client's address. */
export function refuseWrongCredential(req: Request, res: Response, next: NextFunction): void {
  const { error } = authenticationOf(res);
  if (error) return answerDomainError(req, res, error);
  next();
}
