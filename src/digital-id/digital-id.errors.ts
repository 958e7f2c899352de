/**
 * Why a digital-ID presentation was refused. Each value names the verification step that failed, and is
 * what the `digital_id` check's reason carries: a tenant (or a test) can tell a tampered element from an
 * expired credential without reading logs.
 */
export type DigitalIdFailureReason =
  // Shape of what the wallet sent.
  | 'malformed_presentation'
  | 'unsupported_format'
  | 'unexpected_doctype'
  // Issuer: certificate path to a trusted root, and the issuer's signature.
  | 'untrusted_issuer'
  | 'issuer_certificate_expired'
  | 'issuer_certificate_not_yet_valid'
  | 'issuer_certificate_bad_key_usage'
  | 'issuer_certificate_invalid'
  | 'issuer_signature_invalid'
  | 'issuer_country_missing'
  // The credential's own validity.
  | 'credential_expired'
  | 'credential_not_yet_valid'
  | 'signed_outside_certificate_validity'
  // Integrity of what was disclosed.
  | 'digest_mismatch'
  | 'element_not_requested'
  | 'requested_element_missing'
  // Holder binding to this session.
  | 'device_auth_invalid'
  | 'key_binding_missing'
  | 'key_binding_invalid'
  | 'nonce_mismatch'
  | 'audience_mismatch'
  // Status list, and the issuer's certificate revocation list.
  | 'credential_revoked'
  | 'status_unavailable'
  /** The certificate that signs the status list (or a CA above it) is on its issuer's CRL: the list cannot be believed. */
  | 'status_list_signer_revoked'
  | 'issuer_certificate_revoked'
  | 'revocation_unavailable';

/**
 * `error` rather than `fail`: the service could not finish the check (a status list or a CRL it cannot fetch
 * or trust). Everything else is the credential's fault and fails the check.
 */
export const ERROR_REASONS: ReadonlySet<DigitalIdFailureReason> = new Set(['status_unavailable', 'revocation_unavailable']);

export class DigitalIdVerificationError extends Error {
  constructor(
    readonly reason: DigitalIdFailureReason,
    /** A short English detail for the check's reason; never the credential's personal data. */
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
    this.name = 'DigitalIdVerificationError';
  }
}
