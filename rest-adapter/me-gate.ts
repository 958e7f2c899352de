import type { NextFunction, Request, Response } from 'express';
import type { RoutePolicyTable } from '../src/auth/authorization-policy';
import { UserTokenRefusal, type UserTokenPolicy } from '../src/auth/user-token.policy';
import { DomainError } from '../src/errors';
import { answerDomainError, sendError } from '../http/error-response';

/** The paths the gate stands before: /v1/me and everything under it. */
export const ME_PATHS = ['/me', '/me/{*rest}'];

/**
 * /v1/me and everything under it take only the end user's JWT access token (docs/accounts-and-oidc.md),
 * with what the route needs by the one policy table (the records' guards, src/auth/authorization-policy.ts, D20): no credential is
 * 401, a tenant key or a session client_secret is 403 `user_token_required`, a token without the
 * scope 403 `insufficient_scope` (with RFC 6750's challenge), a stale sign-in where a recent one is
 * needed 403 `reauthentication_required`. A path the table does not name is 404. Nothing here reads the
 * body: the route records under /v1/me (rest-adapter/me.routes.ts), mounted after this gate like every
 * other record (mountRoutes: the body, the input limits), receive an EndUserActor (`endUserOf(ctx)`).
 */
export function meGate(policy: UserTokenPolicy, table: Pick<RoutePolicyTable, 'capabilityOfMeRoute'>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const actor = req.auth.context?.actor;
    if (!actor) return sendError(res, 'unauthorized', 'Missing or invalid credential');
    if (actor.kind !== 'end_user') return sendError(res, 'user_token_required', "This endpoint needs the end user's own access token; tenant API keys are refused here");
    const capability = table.capabilityOfMeRoute(req.method, req.originalUrl.split('?')[0].replace(/^\/v1/, ''));
    if (!capability) return sendError(res, 'not_found', 'No such route');
    try {
      policy.authorize(actor, capability);
    } catch (err) {
      if (err instanceof UserTokenRefusal) res.setHeader('www-authenticate', challengeOf(err, policy.reauthenticationWindowSeconds));
      if (err instanceof DomainError) return answerDomainError(req, res, err);
      return next(err);
    }
    next();
  };
}

/** RFC 6750 §3 (`insufficient_scope` names the scope) and RFC 9470 (a stale sign-in: `insufficient_user_authentication` with max_age). */
function challengeOf(err: UserTokenRefusal, windowSeconds: number): string {
  const description = err.message.replace(/["\\]/g, "'");
  if (err.code === 'reauthentication_required') return `Bearer error="insufficient_user_authentication", error_description="${description}", max_age=${windowSeconds}`;
  return `Bearer error="insufficient_scope", error_description="${description}", scope="${err.scope}"`;
}
