import { children, DerError, readNode } from './der.reader';

export type MrzFormat = 'TD1' | 'TD2' | 'TD3';

/** What the service may show from DG1: no name, no birth date, and the number masked. */
export interface MrzSummary {
  readonly format: MrzFormat;
  /** e.g. "P", "ID", "I"; filler removed. */
  readonly document_type: string;
  /** ICAO 9303-3 code, e.g. "UTO", "NLD", or "D" for Germany. */
  readonly issuing_state: string;
  readonly document_number_masked: string;
  /** ISO date (YYYY-MM-DD), or null when the field is not a valid date. */
  readonly date_of_expiry: string | null;
  /** Whether the document number and expiry check digits are correct. */
  readonly check_digits_valid: boolean;
}

const LINE_LENGTHS: Record<number, { format: MrzFormat; line: number }> = {
  90: { format: 'TD1', line: 30 },
  72: { format: 'TD2', line: 36 },
  88: { format: 'TD3', line: 44 },
};

/** Extracts the MRZ from DG1 (tag 0x61 wrapping 0x5F1F) and summarises it; null when DG1 is not readable. */
export function parseMrz(dg1: Buffer): MrzSummary | null {
  const text = mrzText(dg1);
  if (text === null) return null;
  const layout = LINE_LENGTHS[text.length];
  if (!layout || !/^[A-Z0-9<]+$/.test(text)) return null;
  const lines = [0, 1, 2].map((i) => text.slice(i * layout.line, (i + 1) * layout.line));

  let number: string;
  let numberCheck: boolean;
  let expiry: string;
  let expiryCheck: string;
  if (layout.format === 'TD1') {
    ({ number, valid: numberCheck } = td1DocumentNumber(lines[0]));
    expiry = lines[1].slice(8, 14);
    expiryCheck = lines[1][14];
  } else {
    number = lines[1].slice(0, 9);
    numberCheck = checkDigit(number) === lines[1][9];
    expiry = lines[1].slice(21, 27);
    expiryCheck = lines[1][27];
  }

  return {
    format: layout.format,
    document_type: stripFiller(lines[0].slice(0, 2)),
    issuing_state: stripFiller(lines[0].slice(2, 5)),
    document_number_masked: maskDocumentNumber(stripFiller(number)),
    date_of_expiry: expiryDate(expiry),
    check_digits_valid: numberCheck && checkDigit(expiry) === expiryCheck,
  };
}

/** Replaces all but the last two characters with '*'; numbers of two characters or fewer are fully masked. */
export function maskDocumentNumber(number: string): string {
  if (number.length <= 2) return '*'.repeat(number.length);
  return '*'.repeat(number.length - 2) + number.slice(-2);
}

/** The MRZ characters DG1 holds (all lines run together), or null when DG1 is not readable. */
export function mrzText(dg1: Buffer): string | null {
  try {
    const outer = readNode(dg1, 0);
    if (outer.tagClass !== 1 || outer.tagNumber !== 1) return null;
    const field = children(outer).find((n) => n.tagClass === 1 && n.tagNumber === 0x1f);
    return field ? field.value.toString('latin1') : null;
  } catch (error) {
    if (error instanceof DerError) return null;
    throw error;
  }
}

/** TD1 numbers longer than 9 characters continue in the optional data (ICAO 9303-5 4.2.2). */
function td1DocumentNumber(line: string): { number: string; valid: boolean } {
  const head = line.slice(5, 14);
  if (line[14] !== '<') return { number: head, valid: checkDigit(head) === line[14] };
  const extension = line.slice(15, 30).split('<')[0];
  if (extension.length < 2) return { number: head, valid: false };
  const number = head + extension.slice(0, -1);
  return { number, valid: checkDigit(number) === extension.slice(-1) };
}

function checkDigit(field: string): string {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < field.length; i++) {
    const c = field[i];
    const value = c === '<' ? 0 : c >= '0' && c <= '9' ? c.charCodeAt(0) - 48 : c.charCodeAt(0) - 55;
    sum += value * weights[i % 3];
  }
  return String(sum % 10);
}

function stripFiller(value: string): string {
  return value.replace(/</g, ' ').trim().replace(/ +/g, ' ');
}

function expiryDate(yymmdd: string): string | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  // Expiry dates lie near the present; a 70 pivot keeps 1970-2069 unambiguous.
  const year = yy >= 70 ? 1900 + yy : 2000 + yy;
  const month = Number(yymmdd.slice(2, 4));
  const day = Number(yymmdd.slice(4, 6));
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date.toISOString().slice(0, 10);
}
