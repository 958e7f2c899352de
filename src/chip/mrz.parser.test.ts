import { fixture } from '../../test/fixtures/icao/icao.fixtures';
import { maskDocumentNumber, parseMrz } from './mrz.parser';

/** Wraps MRZ text as DG1: tag 0x61 around tag 0x5F1F. */
function dg1(mrz: string): Buffer {
  const inner = Buffer.concat([Buffer.from([0x5f, 0x1f, mrz.length]), Buffer.from(mrz, 'latin1')]);
  return Buffer.concat([Buffer.from([0x61, inner.length]), inner]);
}

// ICAO Doc 9303 part 5 and 6 specimens.
const TD1 = 'I<UTOD231458907<<<<<<<<<<<<<<<' + '7408122F1204159UTO<<<<<<<<<<<6' + 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<';
const TD2 = 'I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<' + 'D231458907UTO7408122F1204159<<<<<<<6';

describe('parseMrz', () => {
  it('reads a TD3 passport MRZ from DG1 as read from the chip', () => {
    expect(parseMrz(fixture('synthetic', 'EF_DG1.bin'))).toEqual({
      format: 'TD3',
      document_type: 'P',
      issuing_state: 'UTO',
      document_number_masked: '*******C3',
      date_of_expiry: '2012-04-15',
      check_digits_valid: true,
    });
  });

  it('reads the German single-letter issuing state without its filler', () => {
    expect(parseMrz(fixture('bsi_2008_test_passport_mustermann', 'EF_DG1.bin'))).toMatchObject({ issuing_state: 'D', document_type: 'P' });
  });

  it('reads a TD1 identity card MRZ', () => {
    expect(parseMrz(dg1(TD1))).toEqual({
      format: 'TD1',
      document_type: 'I',
      issuing_state: 'UTO',
      document_number_masked: '*******90',
      date_of_expiry: '2012-04-15',
      check_digits_valid: true,
    });
  });

  it('reads a TD1 document number that continues into the optional data', () => {
    // 12-character number: 9 in the number field, '<' as check digit, the rest plus check digit after it.
    const line1 = 'I<UTOD23145890<AB33<<<<<<<<<<<';
    const summary = parseMrz(dg1(line1 + TD1.slice(30)));
    expect(summary?.document_number_masked).toBe('**********B3');
    expect(summary?.check_digits_valid).toBe(true);
  });

  it('reads a TD2 MRZ', () => {
    expect(parseMrz(dg1(TD2))).toMatchObject({ format: 'TD2', document_type: 'I', issuing_state: 'UTO', document_number_masked: '*******90', date_of_expiry: '2012-04-15', check_digits_valid: true });
  });

  it('flags a wrong check digit without hiding the summary', () => {
    const broken = TD2.slice(0, 36 + 9) + '0' + TD2.slice(36 + 10);
    expect(parseMrz(dg1(broken))?.check_digits_valid).toBe(false);
  });

  it('returns null for DG1 bytes that hold no MRZ', () => {
    expect(parseMrz(Buffer.from([0x61, 0x03, 0x01, 0x01, 0x00]))).toBeNull();
    expect(parseMrz(dg1('TOO SHORT'))).toBeNull();
    expect(parseMrz(Buffer.from('garbage'))).toBeNull();
    expect(parseMrz(Buffer.alloc(0))).toBeNull();
  });
});

describe('maskDocumentNumber', () => {
  it('keeps only the last two characters', () => {
    expect(maskDocumentNumber('L898902C3')).toBe('*******C3');
  });

  it('masks very short numbers completely', () => {
    expect(maskDocumentNumber('AB')).toBe('**');
  });
});
