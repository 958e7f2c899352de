import { mrzKeyFromLines, parseHandoffLink } from '../src';
import { toBase64 } from '../src/bytes';

describe('the MRZ key from the lines the camera read', () => {
  it('TD3: the ICAO 9303-4 specimen passport', () => {
    expect(mrzKeyFromLines(['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'])).toEqual({
      documentNumber: 'L898902C3',
      dateOfBirth: '740812',
      dateOfExpiry: '120415',
    });
  });

  it('TD1: the ICAO 9303-5 specimen card', () => {
    expect(mrzKeyFromLines(['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'])).toEqual({
      documentNumber: 'D23145890',
      dateOfBirth: '740812',
      dateOfExpiry: '120415',
    });
  });

  it('refuses a misread line by its check digit, before any chip is touched', () => {
    expect(() => mrzKeyFromLines(['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408132F1204159ZE184226B<<<<<10'])).toThrow(expect.objectContaining({ code: 'invalid_mrz' }));
  });
});

describe('the handoff link', () => {
  it('reads the custom scheme query and the universal link fragment', () => {
    expect(parseHandoffLink('idverify://chip?session_id=vses_1&client_secret=vses_1_secret_a%2Bb')).toEqual({ sessionId: 'vses_1', clientSecret: 'vses_1_secret_a+b' });
    expect(parseHandoffLink('https://app.example/chip#session_id=vses_2&client_secret=vses_2_secret_x')).toEqual({ sessionId: 'vses_2', clientSecret: 'vses_2_secret_x' });
    expect(() => parseHandoffLink('idverify://chip')).toThrow(expect.objectContaining({ code: 'upload_failed' }));
  });
});

it('base64 without Buffer matches RFC 4648', () => {
  for (const text of ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar']) expect(toBase64(new TextEncoder().encode(text))).toBe(Buffer.from(text).toString('base64'));
});
