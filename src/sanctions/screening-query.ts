import { isIsoAlpha2 } from './countries';
import { normalizeName } from './matching/name-normalizer';
import type { ScreeningQuery } from './sanctions.model';

export const DEFAULT_SCREENING_THRESHOLD = 0.7;
export const MAX_NAME_LENGTH = 500;

export type ScreeningValidationField = 'fullName' | 'birthDate' | 'nationality' | 'threshold';

/** A bad screening request: transports map code `invalid_request` to a 400. */
export class ScreeningValidationError extends Error {
  readonly code = 'invalid_request' as const;
  constructor(
    readonly field: ScreeningValidationField,
    message: string,
  ) {
    super(message);
    this.name = 'ScreeningValidationError';
  }
}

export type ValidationResult = { ok: true; query: ScreeningQuery } | { ok: false; error: ScreeningValidationError };

function fail(field: ScreeningValidationField, message: string): ValidationResult {
  return { ok: false, error: new ScreeningValidationError(field, message) };
}

/**
 * Checks untrusted input before it reaches the index. Returns the trimmed query or a typed
 * error; never throws, so a transport can map the result without a try/catch.
 */
export function validateScreeningQuery(input: unknown): ValidationResult {
  if (typeof input !== 'object' || input === null) return fail('fullName', 'the screening input must be an object with fullName');
  const { fullName, birthDate, nationality } = input as Record<string, unknown>;
  if (typeof fullName !== 'string' || fullName.trim() === '') return fail('fullName', 'fullName is required');
  const name = fullName.trim().replace(/\s+/g, ' ');
  if (name.length > MAX_NAME_LENGTH) return fail('fullName', `fullName is longer than ${MAX_NAME_LENGTH} characters`);
  const letters = normalizeName(name).tokens.join('');
  if (!/\p{L}/u.test(letters)) return fail('fullName', 'fullName holds no letters');
  if (letters.length < 2) return fail('fullName', 'fullName must have at least 2 letters');

  const query: ScreeningQuery = { fullName: name };
  if (birthDate !== undefined && birthDate !== null && birthDate !== '') {
    if (typeof birthDate !== 'string') return fail('birthDate', 'birthDate must be a string YYYY or YYYY-MM-DD');
    const m = /^(\d{4})(?:-(\d{2})-(\d{2}))?$/.exec(birthDate.trim());
    if (!m) return fail('birthDate', 'birthDate must be YYYY or YYYY-MM-DD');
    const year = Number(m[1]);
    const thisYear = new Date().getUTCFullYear();
    if (year < 1850 || year > thisYear) return fail('birthDate', `birthDate year must be between 1850 and ${thisYear}`);
    if (m[2]) {
      const d = new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3])));
      if (d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return fail('birthDate', `birthDate ${birthDate} is not a calendar date`);
      if (d.getTime() > Date.now()) return fail('birthDate', 'birthDate is in the future');
    }
    query.birthDate = birthDate.trim();
  }
  if (nationality !== undefined && nationality !== null && nationality !== '') {
    if (typeof nationality !== 'string' || !/^[A-Za-z]{2}$/.test(nationality.trim()) || !isIsoAlpha2(nationality.trim())) {
      return fail('nationality', 'nationality must be an ISO 3166-1 alpha-2 country code');
    }
    query.nationality = nationality.trim().toUpperCase();
  }
  return { ok: true, query };
}
