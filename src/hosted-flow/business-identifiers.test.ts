import { abnChecksumOk, leiChecksumOk, validateBusinessDetails } from './business-identifiers';

describe('business identifiers', () => {
  it('accepts published LEIs and refuses any single mistyped character (ISO 17442 MOD 97-10)', () => {
    for (const lei of ['5493001KJTIIGC8Y1R12', 'HWUPKR0MPOU8FGXBT394', '529900T8BM49AURSDO55']) {
      expect(leiChecksumOk(lei)).toBe(true);
      expect(leiChecksumOk(lei.slice(0, 5) + (lei[5] === '0' ? '1' : '0') + lei.slice(6))).toBe(false);
    }
  });

  it('accepts a valid ABN and refuses a changed digit', () => {
    expect(abnChecksumOk('51824753556')).toBe(true);
    expect(abnChecksumOk('51824753557')).toBe(false);
  });

  it('accepts UK company numbers of 8 digits or a register prefix and 6 digits, and CIKs of up to 10 digits', () => {
    expect(validateBusinessDetails({ uk_company_number: '00445790', cik: '1' }).errors).toEqual([]);
    expect(validateBusinessDetails({ uk_company_number: 'NI012345' }).errors).toEqual([]);
    expect(validateBusinessDetails({ uk_company_number: 'XX123456' }).errors[0].code).toBe('invalid_format');
    expect(validateBusinessDetails({ cik: '12a' }).errors[0]).toMatchObject({ field: 'cik', code: 'invalid_format' });
  });
});
