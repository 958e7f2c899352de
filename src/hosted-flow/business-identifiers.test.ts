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
    const n = { legal_name: 'Acme Ltd' };
    expect(validateBusinessDetails({ ...n, uk_company_number: '00445790', cik: '1' }).errors).toEqual([]);
    expect(validateBusinessDetails({ ...n, uk_company_number: 'NI012345' }).errors).toEqual([]);
    expect(validateBusinessDetails({ ...n, uk_company_number: 'XX123456' }).errors[0].code).toBe('invalid_format');
    expect(validateBusinessDetails({ ...n, cik: '12a' }).errors[0]).toMatchObject({ field: 'cik', code: 'invalid_format' });
  });

  it('pads a UK company number to 8 and a CIK to 10, and refuses numbers made only of zeros', () => {
    expect(validateBusinessDetails({ legal_name: 'Shell plc', uk_company_number: '4366849', cik: '320193' }).details).toEqual({ legal_name: 'Shell plc', uk_company_number: '04366849', cik: '0000320193' });
    expect(validateBusinessDetails({ legal_name: 'X', cik: '0000' }).errors[0]).toMatchObject({ field: 'cik', code: 'invalid_format' });
    expect(validateBusinessDetails({ legal_name: 'X', uk_company_number: '00000000' }).errors[0]).toMatchObject({ field: 'uk_company_number', code: 'invalid_format' });
  });

  it('requires the legal name, keeps the country as an upper-case ISO code, and refuses a bad one', () => {
    expect(validateBusinessDetails({ lei: '5493001KJTIIGC8Y1R12' }).errors).toEqual([{ field: 'legal_name', code: 'required', message: expect.any(String) }]);
    expect(validateBusinessDetails({ legal_name: '  Acme   Widgets  Ltd ', country: 'gb', abn: '51824753556' }).details).toEqual({ legal_name: 'Acme Widgets Ltd', country: 'GB', abn: '51824753556' });
    expect(validateBusinessDetails({ legal_name: 'Acme', country: 'GBR', abn: '51824753556' }).errors[0]).toMatchObject({ field: 'country', code: 'invalid_format' });
    expect(validateBusinessDetails({ legal_name: 'x'.repeat(256), abn: '51824753556' }).errors[0]).toMatchObject({ field: 'legal_name', code: 'invalid_format' });
    expect(validateBusinessDetails({ legal_name: 'Acme' }).errors[0]).toMatchObject({ code: 'identifier_required' });
  });
});
