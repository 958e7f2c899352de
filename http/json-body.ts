import express, { NextFunction, Request, Response } from 'express';
import { sendError } from './error-response';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'], strict: false });

/** JSON bodies for /v1 writes: 415 for another content type, 413 past 1 MiB, 400 for malformed JSON. */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  if (!req.is(['application/json', 'application/*+json'])) {
    sendError(res, 'unsupported_media_type', 'Send the request body as application/json');
    return;
  }
  parseJson(req, res, next);
}

type BodyParserError = Error & { type?: string; status?: number };

/** Turns body-parser failures into error bodies; anything else passes on. */
export function bodyErrors(err: BodyParserError, _req: Request, res: Response, next: NextFunction): void {
  if (err.type === 'entity.too.large') return sendError(res, 'payload_too_large', `Request bodies are at most ${BODY_LIMIT_BYTES} bytes`);
  if (err.type === 'entity.parse.failed') return sendError(res, 'invalid_request', 'The request body is not valid JSON');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return sendError(res, 'unsupported_media_type', 'Unsupported body encoding or charset');
  }
  if (err.type === 'request.aborted' || err.type === 'request.size.invalid') return sendError(res, 'invalid_request', 'The request body was incomplete');
  next(err);
}
