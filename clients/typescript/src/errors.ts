import type { components } from './generated/openapi';

/** The `code` of an error body (openapi.yaml `ErrorBody`), plus the problem documents' codes (429, 409 user_restricted). */
export type IdvErrorCode = components['schemas']['ErrorBody']['error']['code'] | 'rate_limited' | 'user_restricted';

/** Base class of everything this client throws. */
export class IdvError extends Error {
  override name = 'IdvError';
}

/**
 * The service answered with an error status. `code` is the stable code of the error body (or of the
 * problem document); branch on it, not on `message`. `requestId` is what support asks for.
 */
export class IdvApiError extends IdvError {
  override name = 'IdvApiError';
  constructor(
    message: string,
    readonly status: number,
    /** A code of the closed set in openapi.yaml; a newer server may send one this client does not know yet. */
    readonly code: IdvErrorCode | (string & {}),
    readonly requestId: string | null,
    /** The parsed error body as the service sent it. */
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** 429: still limited after the client's bounded retries (or `retry-after` was longer than it may wait). */
export class IdvRateLimitError extends IdvApiError {
  override name = 'IdvRateLimitError';
  constructor(
    message: string,
    requestId: string | null,
    body: unknown,
    /** Whole seconds the service asked to wait (`retry-after`), when it said. */
    readonly retryAfterSeconds: number | null,
    /** The rate-limit bucket that is exhausted (docs/rate-limits.md). */
    readonly bucket: string | null,
  ) {
    super(message, 429, 'rate_limited', requestId, body);
  }
}

/** No answer: the connection failed or timed out (after the retries a GET is allowed). */
export class IdvConnectionError extends IdvError {
  override name = 'IdvConnectionError';
  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A webhook or callback whose `Service-Signature` does not verify (constructEvent). */
export class IdvSignatureError extends IdvError {
  override name = 'IdvSignatureError';
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The typed error for an error response: the error body `{error: {code, message, request_id}}`, or an RFC 9457 problem document. */
export function errorFromResponse(response: Response, body: unknown): IdvApiError {
  const requestId = response.headers.get('request-id');
  if (isObject(body) && isObject(body.error)) {
    const e = body.error;
    return new IdvApiError(str(e.message) ?? `HTTP ${response.status}`, response.status, str(e.code) ?? 'unknown_error', requestId ?? str(e.request_id), body);
  }
  if (isObject(body) && typeof body.type === 'string') {
    // Problem documents name their code in `code`, or as the last segment of `type` (<base>/errors/<code>).
    const code = str(body.code) ?? body.type.slice(body.type.lastIndexOf('/') + 1);
    const message = str(body.detail) ?? str(body.title) ?? `HTTP ${response.status}`;
    if (response.status === 429) return new IdvRateLimitError(message, requestId, body, retryAfterSeconds(response), str(body.bucket));
    return new IdvApiError(message, response.status, code, requestId, body);
  }
  if (response.status === 429) return new IdvRateLimitError(`HTTP 429`, requestId, body, retryAfterSeconds(response), null);
  return new IdvApiError(`HTTP ${response.status}`, response.status, 'unknown_error', requestId, body);
}

/** `retry-after` as whole seconds: the service sends delta-seconds; an HTTP date is accepted too. */
export function retryAfterSeconds(response: Response): number | null {
  const raw = response.headers.get('retry-after');
  if (raw === null) return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
