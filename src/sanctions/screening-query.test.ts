import { DEFAULT_SCREENING_THRESHOLD, validateScreeningQuery } from './screening-query';

const err = (input: unknown) => {
  const r = validateScreeningQuery(input);
  if (r.ok) throw new Error('expected a validation error');
  return r.error;
};

describe('validateScreeningQuery', () => {
  it('defaults the threshold to 0.70', () => {
    expect(DEFAULT_SCREENING_THRESHOLD).toBe(0.7);
  });

  it('accepts a name with a year or full date and an ISO country, normalising case and spaces', () => {
    expect(validateScreeningQuery({ fullName: '  Ismail   Haniya ', birthDate: '1962', nationality: 'ps' })).toEqual({ ok: true, query: { fullName: 'Ismail Haniya', birthDate: '1962', nationality: 'PS' } });
    expect(validateScreeningQuery({ fullName: 'Мохаммад Ахунд', birthDate: '1958-05-12' }).ok).toBe(true);
  });

  it.each([
    ['an empty name', { fullName: '' }, 'fullName'],
    ['a missing name', {}, 'fullName'],
    ['a one-character name', { fullName: 'A' }, 'fullName'],
    ['a name of 10,000 characters', { fullName: 'a'.repeat(10_000) }, 'fullName'],
    ['only punctuation', { fullName: '?!.,--' }, 'fullName'],
    ['an impossible date', { fullName: 'Jane Doe', birthDate: '1990-02-30' }, 'birthDate'],
    ['a free-text date', { fullName: 'Jane Doe', birthDate: '12 May 1990' }, 'birthDate'],
    ['a future date', { fullName: 'Jane Doe', birthDate: '2999-01-01' }, 'birthDate'],
    ['an unknown country code', { fullName: 'Jane Doe', nationality: 'ZZ' }, 'nationality'],
    ['a country name instead of a code', { fullName: 'Jane Doe', nationality: 'France' }, 'nationality'],
  ])('rejects %s with code invalid_request', (_label, input, field) => {
    const e = err(input);
    expect(e.code).toBe('invalid_request');
    expect(e.field).toBe(field);
    expect(e.message.length).toBeGreaterThan(5);
  });

  it('rejects non-object input without throwing', () => {
    expect(err(null).code).toBe('invalid_request');
    expect(err('Jane Doe').code).toBe('invalid_request');
  });
});
