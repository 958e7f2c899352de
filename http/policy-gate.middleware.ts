import type { NextFunction, Request, Response } from 'express';
import { refusalOfTenantRoute, type RoutePolicyTable } from '../src/auth/authorization-policy';
import { answerDomainError } from './error-response';

/** Answers the wrong credential `authenticate` found, once metering has charged the client's address. */
export function refuseWrongCredential(req: Request, res: Response, next: NextFunction): void {
  const { error } = req.auth;
  if (error) return answerDomainError(req, res, error);
  next();
}

/**
 * The tenant routes of /v1 answer the credential by the policy table (the route records' guards and
 * src/auth/authorization-policy.ts's other rows)
 * before anything reads the request: a wrong credential is 401 (as refuseWrongCredential answers it), no
 * credential is 401; a user token, or a client_secret where it is not the credential, or a key without
 * the route's scope, is 403 `insufficient_scope`. So a caller without the right learns nothing from the
 * body's validation. /v1/me has its own gate (rest-adapter/me-gate.ts).
 */
export function tenantRouteGate(policy: Pick<RoutePolicyTable, 'ofRequest'>) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.auth.error) return answerDomainError(req, res, req.auth.error);
    // A broken percent-escape names no resource: the router answers it 400 invalid_request, whoever asks.
    if (!decodable(req.path)) return next();
    const row = policy.ofRequest(req.method, `${req.baseUrl}${req.path}`);
    const refusal = row ? refusalOfTenantRoute(row.guard, req.auth.context?.actor) : null;
    if (refusal) return answerDomainError(req, res, refusal);
    next();
  };
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
