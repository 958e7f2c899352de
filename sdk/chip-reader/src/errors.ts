/**
 * What can go wrong reading a chip, as a stable `code` an app can branch on:
 * - `wrong_mrz_key`: the chip refused the key from the MRZ (BAC/PACE mutual authentication failed);
 * - `tag_lost`: the transport failed mid-exchange (the phone moved away from the passport);
 * - `secure_messaging`: a response failed its MAC, lacked one, or the chip ended secure messaging;
 * - `unsupported_chip`: not an eMRTD, or something this reader does not do;
 * - `invalid_mrz`: the MRZ fields cannot make a key;
 * - `upload_failed`: the service refused or could not be reached.
 */
export type ChipReaderErrorCode = 'wrong_mrz_key' | 'tag_lost' | 'secure_messaging' | 'unsupported_chip' | 'invalid_mrz' | 'upload_failed';

export class ChipReaderError extends Error {
  constructor(
    readonly code: ChipReaderErrorCode,
    message: string,
    readonly details: { statusWord?: number; httpStatus?: number; body?: unknown } = {},
  ) {
    super(message);
    this.name = 'ChipReaderError';
  }
}

export const wrongMrzKey = (sw: number) => new ChipReaderError('wrong_mrz_key', `the chip refused the MRZ key (status ${sw.toString(16).toUpperCase()})`, { statusWord: sw });
export const smFailure = (why: string, sw?: number) => new ChipReaderError('secure_messaging', `secure messaging failed: ${why}`, { statusWord: sw });
export const unsupportedChip = (why: string, sw?: number) => new ChipReaderError('unsupported_chip', `unsupported chip: ${why}`, { statusWord: sw });
