/** The closed set of error codes the service returns (docs/api-behaviour.md, "Errors"). */
export type ErrorCode =
  | 'invalid_request'
  | 'too_many_records'
  | 'tier_not_available'
  | 'data_group_not_allowed'
  | 'unauthorized'
  | 'user_token_required'
  | 'insufficient_scope'
  | 'reauthentication_required'
  | 'not_regulated'
  | 'not_found'
  | 'link_invalid'
  | 'gone'
  | 'invalid_state'
  | 'user_restricted'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'audio_not_allowed'
  | 'upload_too_slow'
  | 'rate_limited'
  | 'internal_error'
  | 'upstream_unreachable'
  | 'upstream_not_configured'
  | 'upstream_timeout';

export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  too_many_records: 400,
  tier_not_available: 400,
  data_group_not_allowed: 400,
  unauthorized: 401,
  user_token_required: 403,
  insufficient_scope: 403,
  reauthentication_required: 403,
  not_regulated: 403,
  not_found: 404,
  link_invalid: 403,
  gone: 410,
  invalid_state: 409,
  user_restricted: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  audio_not_allowed: 415,
  upload_too_slow: 408,
  rate_limited: 429,
  internal_error: 500,
  upstream_unreachable: 502,
  upstream_not_configured: 503,
  upstream_timeout: 504,
};

/** An expected failure of a use case; transports map `code` to their own shape. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what = 'Session') => new DomainError('not_found', `${what} not found`);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(HTTP_STATUS, value); // not `in`: "constructor" is in every object
}

/** A 400 naming each field at fault with its own stable code (the hosted page's forms link each to its field). */
export class FieldsError extends DomainError {
  constructor(
    message: string,
    readonly fields: { field: string; code: string; message: string }[],
  ) {
    super('invalid_request', message);
  }
}
