export { IdvClient, type IdvClientOptions } from './client';
export type { ListSessionsParams } from './sessions';
export type { WaitOptions } from './bulk-imports';
export { IdvApiError, IdvConnectionError, IdvError, IdvRateLimitError, IdvSignatureError, type IdvErrorCode } from './errors';
export { constructEvent, SIGNATURE_HEADER, verifySignature, type VerifySignatureOptions } from './webhook-signature';
export type { RetryOptions } from './retrying-fetch';
export type * from './types';
export type { components, paths } from './generated/openapi';
