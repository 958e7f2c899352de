import { nationalityFromMrz } from './icao-nationality';

describe('nationalityFromMrz', () => {
  it('maps ICAO alpha-3 codes to the alpha-2 codes screening takes, Germany’s D and the British classes included', () => {
    expect(nationalityFromMrz('RUS')).toBe('RU');
    expect(nationalityFromMrz('BLZ')).toBe('BZ');
    expect(nationalityFromMrz('D<<')).toBe('DE');
    expect(nationalityFromMrz('GBN')).toBe('GB');
  });
  it('gives nothing for codes of no country (stateless, unspecified, UN), so the name is still screened', () => {
    expect(nationalityFromMrz('XXA')).toBeUndefined();
    expect(nationalityFromMrz('UNO')).toBeUndefined();
    expect(nationalityFromMrz('')).toBeUndefined();
  });
});
