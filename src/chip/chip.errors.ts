/**
 * Closed set of codes for chip input and trust material that cannot be processed at all.
 * A parseable SOD whose checks fail is not an error: it yields failed verdicts instead.
 */
export type ChipErrorCode =
  | 'invalid_request'
  | 'malformed_sod'
  | 'payload_too_large'
  | 'data_group_not_allowed'
  | 'malformed_master_list'
  | 'master_list_signature_invalid'
  | 'untrusted_master_list_signer'
  | 'malformed_certificate';

export class ChipInputError extends Error {
  override readonly name = 'ChipInputError';

  constructor(
    readonly code: ChipErrorCode,
    message: string,
    /** JSON-pointer-like location of the offending field, when the input was a request body. */
    readonly field?: string,
  ) {
    super(message);
  }
}

export function isChipInputError(error: unknown): error is ChipInputError {
  return error instanceof ChipInputError;
}
