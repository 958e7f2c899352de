import { sha1 } from '@noble/hashes/sha1';
import { ChipReaderError } from './errors';

/** The MRZ fields that make the BAC (and PACE MRZ) key: what the user types or the camera reads. */
export type MrzKey = {
  /** As printed, up to 9 characters (longer numbers of TD1 cards are not supported). */
  documentNumber: string;
  /** YYMMDD */
  dateOfBirth: string;
  /** YYMMDD */
  dateOfExpiry: string;
};

const WEIGHTS = [7, 3, 1];

/** ICAO 9303-3 4.9 check digit. */
export function checkDigit(field: string): string {
  let sum = 0;
  for (let i = 0; i < field.length; i++) {
    const c = field[i];
    const v = c === '<' ? 0 : c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : c >= 'A' && c <= 'Z' ? c.charCodeAt(0) - 55 : NaN;
    if (Number.isNaN(v)) throw new ChipReaderError('invalid_mrz', `MRZ character not allowed: ${c}`);
    sum += v * WEIGHTS[i % 3];
  }
  return String(sum % 10);
}

/** ICAO 9303-11 9.7.2: document number, date of birth and expiry, each with its check digit. */
export function mrzInformation(key: MrzKey): string {
  const number = key.documentNumber.toUpperCase().replace(/\s/g, '');
  if (!/^[A-Z0-9<]{1,9}$/.test(number)) throw new ChipReaderError('invalid_mrz', 'document number: 1 to 9 letters or digits');
  for (const [name, date] of [['date of birth', key.dateOfBirth], ['expiry', key.dateOfExpiry]] as const) {
    if (!/^\d{6}$/.test(date)) throw new ChipReaderError('invalid_mrz', `${name}: YYMMDD`);
  }
  const padded = number.padEnd(9, '<');
  return padded + checkDigit(padded) + key.dateOfBirth + checkDigit(key.dateOfBirth) + key.dateOfExpiry + checkDigit(key.dateOfExpiry);
}

/** Kseed: the first 16 bytes of SHA-1 over the MRZ information. */
export function bacKeySeed(key: MrzKey): Uint8Array {
  const info = mrzInformation(key);
  const bytes = new Uint8Array(info.length);
  for (let i = 0; i < info.length; i++) bytes[i] = info.charCodeAt(i);
  return sha1(bytes).subarray(0, 16);
}

/**
 * The BAC key fields from the MRZ lines the app's camera (or the user) read: TD3 passports (2 x 44)
 * or TD1 cards (3 x 30). Check digits are checked, so a misread line fails here, not at the chip.
 */
export function mrzKeyFromLines(lines: string[]): MrzKey {
  const clean = lines.map((l) => l.trim().toUpperCase());
  let key: MrzKey;
  let digits: string[];
  if (clean.length === 2 && clean[1].length === 44) {
    const l = clean[1];
    key = { documentNumber: l.slice(0, 9).replace(/<+$/, ''), dateOfBirth: l.slice(13, 19), dateOfExpiry: l.slice(21, 27) };
    digits = [l[9], l[19], l[27]];
  } else if (clean.length === 3 && clean[0].length === 30) {
    key = { documentNumber: clean[0].slice(5, 14).replace(/<+$/, ''), dateOfBirth: clean[1].slice(0, 6), dateOfExpiry: clean[1].slice(8, 14) };
    digits = [clean[0][14], clean[1][6], clean[1][14]];
  } else throw new ChipReaderError('invalid_mrz', 'MRZ lines are neither TD3 (2 x 44) nor TD1 (3 x 30)');
  const expected = [checkDigit(key.documentNumber.padEnd(9, '<')), checkDigit(key.dateOfBirth), checkDigit(key.dateOfExpiry)];
  if (expected.join('') !== digits.join('')) throw new ChipReaderError('invalid_mrz', 'an MRZ check digit does not match');
  return key;
}
