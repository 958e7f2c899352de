import type { FieldError } from './business-identifiers';

/**
 * The T3 step: the name and date of birth to be screened, as the user confirms them (docs/hosted-flow.md,
 * "Identity confirmation"). The document is not read before submit, so the user types them as printed;
 * they are meant to be compared with the document's MRZ, a mismatch going to review.
 */
export type ConfirmedIdentity = { given_names: string; surname: string; date_of_birth: string };

/** The associated data the vault seals a session's confirmed identity under (it cannot be moved to another session). */
export const identitySealContext = (sessionId: string): string => `identity:${sessionId}`;

const NAME = /^[\p{L}\p{M}' .-]{1,100}$/u;

export function validateIdentity(body: unknown, today: Date): { identity: ConfirmedIdentity | null; errors: FieldError[] } {
  const input = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const errors: FieldError[] = [];
  const text = (k: string) => (typeof input[k] === 'string' ? (input[k] as string).trim().replace(/\s+/g, ' ') : '');
  const given = text('given_names');
  const surname = text('surname');
  const dob = text('date_of_birth');
  if (!surname) errors.push({ field: 'surname', code: 'required', message: 'Enter your surname as printed on your document' });
  else if (!NAME.test(surname)) errors.push({ field: 'surname', code: 'invalid_format', message: 'A surname has only letters, spaces, hyphens and apostrophes' });
  if (given && !NAME.test(given)) errors.push({ field: 'given_names', code: 'invalid_format', message: 'Given names have only letters, spaces, hyphens and apostrophes' });
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dob);
  const date = d ? new Date(Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]))) : null;
  if (!dob) errors.push({ field: 'date_of_birth', code: 'required', message: 'Enter your date of birth' });
  else if (!date || date.toISOString().slice(0, 10) !== dob) errors.push({ field: 'date_of_birth', code: 'invalid_date', message: 'Enter a real date of birth as YYYY-MM-DD' });
  else if (date.getTime() > today.getTime() || Number(d![1]) < 1900) errors.push({ field: 'date_of_birth', code: 'out_of_range', message: 'The date of birth must be in the past' });
  if (errors.length) return { identity: null, errors };
  return { identity: { given_names: given, surname, date_of_birth: dob }, errors };
}

/** A name as an MRZ spells it: capitals A-Z and single spaces, accents dropped (or, for German umlauts, the ICAO 9303 AE/OE/UE). */
function mrzSpellings(name: string): string[] {
  const up = name.toUpperCase();
  const plain = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').replace(/[^A-Z]+/g, ' ').trim();
  return [...new Set([plain(up), plain(up.replace(/Ä/g, 'AE').replace(/Ö/g, 'OE').replace(/Ü/g, 'UE').replace(/ß/g, 'SS'))])];
}

/**
 * The fields where what the user typed differs from the document's MRZ (surname and date of birth;
 * an MRZ cuts long names short, so a typed name the MRZ's is a prefix of still matches).
 */
export function differencesFromMrz(confirmed: ConfirmedIdentity, mrz: { surname: string; dateOfBirth: string }): string[] {
  const out: string[] = [];
  const read = mrz.surname.replace(/[^A-Z]+/g, ' ').trim();
  if (!read || !mrzSpellings(confirmed.surname).some((typed) => typed === read || typed.startsWith(read))) out.push('surname');
  if (confirmed.date_of_birth !== mrz.dateOfBirth) out.push('date_of_birth');
  return out;
}
