import type { Request, Response } from 'express';
import { DomainError, ErrorCode, FieldsError, HTTP_STATUS } from '../src/errors';

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

/** How a route answers its domain errors: `formFields` adds a FieldsError's fields (documented for the hosted page's forms only). */
export type DomainErrorAnswer = { formFields?: boolean };

/**
 * The one mapping of a domain error to its /v1 answer, sent once the client has finished sending
 * (reading the rest into nothing): a client refused mid-upload then reads a clean error body
 * instead of a reset connection. A body that keeps coming past the largest accepted upload is cut off.
 */
export function answerDomainError(req: Request, res: Response, err: DomainError, how: DomainErrorAnswer = {}): void {
  const send = () => sendError(res, err.code, err.message, how.formFields && err instanceof FieldsError ? err.fields : undefined);
  if (req.readableEnded || req.complete || req.method === 'GET') return send();
  if (err.code === 'upload_too_slow') {
    // Draining a body that arrives too slowly would hold the connection anyway: answer and close it.
    res.setHeader('connection', 'close');
    res.once('finish', () => req.destroy());
    return send();
  }
  let discarded = 0;
  const cutOff = 64 * 1024 * 1024;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > cutOff) {
      res.setHeader('connection', 'close');
      send();
      req.destroy();
    }
  });
  req.on('end', () => {
    if (!res.headersSent) send();
  });
  req.resume();
}
