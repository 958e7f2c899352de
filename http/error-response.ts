import type { Response } from 'express';
import { ErrorCode, HTTP_STATUS } from '../src/errors';

/** The definition-shape error body (docs/api-behaviour.md, "Errors"): `{"error": {"code", "message", "request_id"}}`. */
export function sendError(res: Response, code: ErrorCode, message: string, fields?: { field: string; code: string; message: string }[]): void {
  const requestId = String(res.getHeader('request-id') ?? '');
  res.status(HTTP_STATUS[code]).json({ error: { code, message, request_id: requestId, ...(fields ? { fields } : {}) } });
}
