import type { NextFunction, Request, Response, Router } from 'express';
import type { EndUserActor } from '../src/auth/actor';
import type { Container } from '../src/container';
import { authenticationOf } from './authenticate.middleware';
import { answeringDomainErrors, sendError } from './error-response';

/** The end user of a /v1/me request, as the gate below left it. */
export const endUserOf = (res: Response): EndUserActor => authenticationOf(res).context!.actor as EndUserActor;

/**
 * /v1/me and everything under it take only the end user's JWT access token (docs/accounts-and-oidc.md):
 * no credential is 401, a tenant key or a session client_secret is 403 `user_token_required`.
 * Routes added under /v1/me after this gate receive an EndUserActor (`endUserOf(res)`).
 */
export function meRoutes(v1: Router, c: Container): void {
  v1.use(['/me', '/me/{*rest}'], (_req: Request, res: Response, next: NextFunction) => {
    const actor = authenticationOf(res).context?.actor;
    if (!actor) return sendError(res, 'unauthorized', 'Missing or invalid credential');
    if (actor.kind !== 'end_user') return sendError(res, 'user_token_required', "This endpoint needs the end user's own access token; tenant API keys are refused here");
    next();
  });
  v1.get(
    '/me',
    answeringDomainErrors(async (_req, res) => {
      res.json(await c.accounts.me.view(endUserOf(res)));
    }),
  );
}
