/**
 * Business identifiers the T4 step collects (docs/hosted-flow.md, "Business details"), checked
 * for shape and check digits before any registry is asked: a typo is the user's to fix on the page.
 */
export type FieldError = { field: string; code: string; message: string };
/** What the T4 step keeps: the legal name the registries' records are compared with, the country, and the identifiers. */
export type BusinessDetails = { legal_name?: string; country?: string; lei?: string; uk_company_number?: string; abn?: string; cik?: string };

/** Longest legal name accepted (GLEIF's fuzzy search caps its query at 255 characters). */
export const MAX_LEGAL_NAME = 255;

const FIELDS = ['lei', 'uk_company_number', 'abn', 'cik'] as const;

/** ISO 17442: 18 alphanumerics and 2 check digits, the whole read as base 36 is 1 mod 97 (ISO 7064 MOD 97-10). */
export function leiChecksumOk(lei: string): boolean {
  let rem = 0;
  for (const ch of lei) {
    const v = parseInt(ch, 36);
    for (const d of String(v)) rem = (rem * 10 + Number(d)) % 97;
  }
  return rem === 1;
}

/** Australian Business Number: subtract 1 from the first digit, weights 10,1,3,...,19, sum divisible by 89. */
export function abnChecksumOk(abn: string): boolean {
  const w = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const digits = [...abn].map(Number);
  digits[0] -= 1;
  return digits.reduce((sum, d, i) => sum + d * w[i], 0) % 89 === 0;
}

/** UK (Companies House) company number: 8 digits, or 2 letters of a known prefix (SC, NI, OC, ...) and 6 digits. */
const UK_COMPANY_NUMBER = /^(\d{8}|(SC|NI|OC|SO|NC|LP|SL|NL|R0|ZC|SE|SF|FC|GE|IP|SP|RC|SR|NF|NP|NO|GS|CE|CS|PC|RS|SA|SG|ES|AC|NA|NZ|IC|SI|NR|RO|NV|LLP?|GN|SZ)\d{6})$/;

const clean = (v: unknown): string => (typeof v === 'string' ? v.replace(/[\s-]/g, '').toUpperCase() : '');

/**
 * Normalised details, or the errors per field (each with a stable code). `legal_name` and at least one
 * identifier are required; `country` is ISO 3166-1 alpha-2 when given.
 */
export function validateBusinessDetails(body: unknown): { details: BusinessDetails; errors: FieldError[] } {
  const input = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const details: BusinessDetails = {};
  const errors: FieldError[] = [];
  const name = input.legal_name;
  if (name !== undefined && name !== null && typeof name !== 'string') errors.push({ field: 'legal_name', code: 'invalid_format', message: 'legal_name must be a string' });
  else if (typeof name !== 'string' || name.trim() === '') errors.push({ field: 'legal_name', code: 'required', message: 'Enter the business’s legal name, as registered' });
  else if (name.trim().length > MAX_LEGAL_NAME || hasControlCharacter(name)) errors.push({ field: 'legal_name', code: 'invalid_format', message: `A legal name is at most ${MAX_LEGAL_NAME} characters, with no control characters` });
  else details.legal_name = name.trim().replace(/\s+/g, ' ');
  const country = input.country;
  if (country !== undefined && country !== null && country !== '') {
    if (typeof country !== 'string' || !/^[A-Za-z]{2}$/.test(country.trim())) errors.push({ field: 'country', code: 'invalid_format', message: 'A country is a two-letter ISO 3166-1 code, such as GB, US or AU' });
    else details.country = country.trim().toUpperCase();
  }
  for (const f of FIELDS) {
    const raw = input[f];
    if (raw === undefined || raw === null || raw === '') continue;
    if (typeof raw !== 'string') {
      errors.push({ field: f, code: 'invalid_format', message: `${f} must be a string` });
      continue;
    }
    const v = f === 'cik' ? raw.trim() : clean(raw);
    const problem = check(f, v);
    if (problem) errors.push({ field: f, ...problem });
    else details[f] = f === 'cik' ? v.padStart(10, '0') : f === 'uk_company_number' && /^\d{1,8}$/.test(v) ? v.padStart(8, '0') : v;
  }
  if (!errors.some((e) => (FIELDS as readonly string[]).includes(e.field)) && !FIELDS.some((f) => details[f])) {
    errors.push({ field: 'lei', code: 'identifier_required', message: 'Enter at least one of LEI, UK company number, ABN or CIK' });
  }
  return { details, errors };
}

function check(f: (typeof FIELDS)[number], v: string): { code: string; message: string } | null {
  switch (f) {
    case 'lei':
      if (!/^[A-Z0-9]{18}\d{2}$/.test(v)) return { code: 'invalid_format', message: 'An LEI is 20 characters: 18 letters or digits and 2 check digits' };
      return leiChecksumOk(v) ? null : { code: 'invalid_checksum', message: 'This LEI’s check digits do not match (ISO 17442); check it for a typo' };
    case 'abn':
      if (!/^\d{11}$/.test(v)) return { code: 'invalid_format', message: 'An ABN is 11 digits' };
      return abnChecksumOk(v) ? null : { code: 'invalid_checksum', message: 'This ABN’s check digits do not match; check it for a typo' };
    case 'cik':
      if (/^0+$/.test(v)) return { code: 'invalid_format', message: 'A CIK is up to 10 digits, not all zeros' };
      return /^\d{1,10}$/.test(v) ? null : { code: 'invalid_format', message: 'A CIK is up to 10 digits' };
    case 'uk_company_number':
      // Companies House numbers are 8 characters; an all-digit number typed without its leading zeros is padded.
      return UK_COMPANY_NUMBER.test(/^\d{1,8}$/.test(v) ? v.padStart(8, '0') : v) && !/^0+$/.test(v) ? null : { code: 'invalid_format', message: 'A UK company number is 8 characters: 8 digits, or 2 letters such as SC and 6 digits' };
  }
}

const hasControlCharacter = (v: string): boolean => [...v].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
