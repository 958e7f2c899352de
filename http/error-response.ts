import type { NextFunction, Request, Response } from 'express';
import { DomainError, ErrorCode, HTTP_STATUS } from '../src/errors';

/** Codes answered with an RFC 9457 problem document rather than the error body (docs/api-behaviour.md, "Errors"). */
const PROBLEM_TITLES: Partial<Record<ErrorCode, string>> = { user_restricted: 'User has restricted processing' };

/** The definition-shape error body (docs/api-behaviour.md, "Errors"): `{"error": {"code", "message", "request_id"}}`. */
export function sendError(res: Response, code: ErrorCode, message: string, fields?: { field: string; code: string; message: string }[]): void {
  const requestId = String(res.getHeader('request-id') ?? '');
  const title = PROBLEM_TITLES[code];
  if (title) return sendProblem(res, code, title, message, requestId);
  res.status(HTTP_STATUS[code]).json({ error: { code, message, request_id: requestId, ...(fields ? { fields } : {}) } });
}

/** The problem document of an error code: `type` is `<PUBLIC_BASE_URL>/errors/<code>`, whose page explains it. */
function sendProblem(res: Response, code: ErrorCode, title: string, detail: string, requestId: string): void {
  const base = String(res.app.locals.publicBaseUrl ?? '').replace(/\/$/, '');
  const status = HTTP_STATUS[code];
  res.status(status).type('application/problem+json').send(JSON.stringify({ type: `${base}/errors/${code}`, title, status, detail, code, request_id: requestId }));
}

/** An async route whose domain errors become the error body; anything else reaches the 500 handler. */
export function answeringDomainErrors(handler: (req: Request, res: Response) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    handler(req, res).catch((err: unknown) => {
      if (err instanceof DomainError) return sendError(res, err.code, err.message);
      next(err);
    });
  };
}
