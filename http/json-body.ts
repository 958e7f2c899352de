import express, { NextFunction, Request, Response } from 'express';
import { sendError } from './error-response';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'], strict: false });

/** Parses a JSON body when there is one (by content type), and leaves the request alone otherwise; parsing twice is a no-op. */
export const parseJsonIfAny = parseJson;

/** JSON bodies for /v1 writes: 415 for another content type, 413 past 1 MiB, 400 for malformed JSON. */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  if (!req.is(['application/json', 'application/*+json'])) {
    sendError(res, 'unsupported_media_type', 'Send the request body as application/json');
    return;
  }
  parseJson(req, res, next);
}

type BodyParserError = Error & { type?: string; status?: number; statusCode?: number; code?: string };

/**
 * Turns request failures that are the client's into error bodies; anything else passes on. Besides
 * body-parser's own types: a body whose content-encoding does not match its bytes (zlib's error,
 * which body-parser marks 400), and any error express or its parsers marked with a 4xx status, such
 * as a path segment with a broken percent-escape. The message never echoes the failure's text.
 */
export function bodyErrors(err: BodyParserError, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  if (err.type === 'entity.too.large') return sendError(res, 'payload_too_large', `Request bodies are at most ${BODY_LIMIT_BYTES} bytes`);
  if (err.type === 'entity.parse.failed') return sendError(res, 'invalid_request', 'The request body is not valid JSON');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return sendError(res, 'unsupported_media_type', 'Unsupported body encoding or charset');
  }
  if (err.type === 'request.aborted' || err.type === 'request.size.invalid') return sendError(res, 'invalid_request', 'The request body was incomplete');
  if (typeof err.code === 'string' && err.code.startsWith('Z_')) return sendError(res, 'invalid_request', 'The request body does not match its content-encoding');
  const status = err.status ?? err.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 404) return sendError(res, 'not_found', 'No such endpoint');
    if (status === 413) return sendError(res, 'payload_too_large', `Request bodies are at most ${BODY_LIMIT_BYTES} bytes`);
    if (status === 415) return sendError(res, 'unsupported_media_type', 'Send the request body as application/json');
    return sendError(res, 'invalid_request', 'The request is malformed (for example a broken percent-escape in the path)');
  }
  next(err);
}
