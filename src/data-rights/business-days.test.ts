import { addBusinessDays, addDays, isBusinessDay } from './business-days';

const at = (iso: string) => new Date(iso);

describe('business days', () => {
  it('counts Monday + 3 business days as Thursday at the same time', () => {
    expect(addBusinessDays(at('2026-11-23T10:15:00Z'), 3).toISOString()).toBe('2026-11-26T10:15:00.000Z');
  });

  it('skips the weekend: Friday + 3 business days is Wednesday', () => {
    expect(addBusinessDays(at('2026-11-27T10:00:00Z'), 3).toISOString()).toBe('2026-12-02T10:00:00.000Z');
  });

  it('starts counting on Monday for a request received on Saturday or Sunday', () => {
    expect(addBusinessDays(at('2026-11-28T23:00:00Z'), 3).toISOString()).toBe('2026-12-02T23:00:00.000Z');
    expect(addBusinessDays(at('2026-11-29T08:00:00Z'), 3).toISOString()).toBe('2026-12-02T08:00:00.000Z');
  });

  it('gives a review 7 business days: Wednesday + 7 is the Friday of the next week', () => {
    expect(addBusinessDays(at('2026-11-25T12:00:00Z'), 7).toISOString()).toBe('2026-12-04T12:00:00.000Z');
  });

  it('judges the weekday in UTC, whatever the local zone of the server', () => {
    expect(isBusinessDay(at('2026-11-28T00:30:00Z'))).toBe(false); // Saturday in UTC
    expect(isBusinessDay(at('2026-11-27T23:30:00Z'))).toBe(true); // still Friday in UTC
  });

  it('adds calendar days for the 30-day completion deadline', () => {
    expect(addDays(at('2026-11-23T10:00:00Z'), 30).toISOString()).toBe('2026-12-23T10:00:00.000Z');
  });

  it('refuses a negative or fractional count', () => {
    expect(() => addBusinessDays(new Date(), -1)).toThrow(RangeError);
    expect(() => addBusinessDays(new Date(), 1.5)).toThrow(RangeError);
  });
});
