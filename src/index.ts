/** The package's public API for receivers of this service's webhooks. */
export { verifyServiceSignature, computeSignature, SIGNATURE_HEADER, DEFAULT_TOLERANCE_SECONDS } from './webhooks/webhook.signer';
export type { VerifyOptions } from './webhooks/webhook.signer';
