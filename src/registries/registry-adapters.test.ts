import { startRegistryServer, TEST_ABR_GUID, TEST_CH_KEY, type RegistryServer } from '../../test/helpers/registry-server';
import { AbnLookupRegistry, unwrapJsonp } from './abn-lookup.registry';
import { CompaniesHouseRegistry } from './companies-house.registry';
import { GleifRegistry } from './gleif.registry';
import { SecEdgarRegistry } from './sec-edgar.registry';

/** The adapters' timeout where the test is not about it: a local answer on a loaded machine may take seconds. */
const PATIENT_MS = 60_000;

/** Each adapter against a local server answering in its registry's documented shapes (test/fixtures/registries). */
let reg: RegistryServer;
const UA = 'Identity Verification Tests tests@example.com';
beforeAll(async () => {
  reg = await startRegistryServer();
});
afterAll(() => reg.close());

describe('GLEIF', () => {
  const gleif = () => new GleifRegistry(`${reg.url}/gleif`, PATIENT_MS);
  it('maps an LEI record to the normalized record, with its registeredAs number and the raw body', async () => {
    const a = await gleif().lookup('21380068P1DRHMJ8KU70');
    expect(a.kind).toBe('found');
    if (a.kind !== 'found') return;
    expect(a.record).toMatchObject({
      registry: 'gleif',
      identifier: '21380068P1DRHMJ8KU70',
      legal_name: 'SHELL PLC',
      status: 'active',
      jurisdiction: 'GB',
      registered_address: { lines: ['SHELL CENTRE'], city: 'LONDON', region: 'GB-LND', postal_code: 'SE1 7NA', country: 'GB' },
      incorporated_on: '2002-02-05',
      source_url: 'https://api.gleif.org/api/v1/lei-records/21380068P1DRHMJ8KU70',
    });
    expect(Date.parse(a.record.retrieved_at)).not.toBeNaN();
    expect(a.context.registeredAs).toEqual({ id: 'RA000585', number: '04366849' });
    expect(JSON.parse(a.raw).data.id).toBe('21380068P1DRHMJ8KU70');
  });

  it('reads an unknown LEI from the 404 error document as not found', async () => {
    expect(await gleif().lookup('5493001KJTIIGC8Y1R12')).toMatchObject({ kind: 'not_found', reason: expect.stringContaining('5493001KJTIIGC8Y1R12') });
  });

  it('answers a 429 as rate limited with its Retry-After, and a 500, a timeout or a malformed body as an error', async () => {
    reg.override('gleif', '529900T8BM49AURSDO55', { status: 429, body: '{"errors":[{"status":"429"}]}', headers: { 'retry-after': '7' } });
    expect(await gleif().lookup('529900T8BM49AURSDO55')).toEqual({ kind: 'rate_limited', retryAfterMs: 7000, reason: 'GLEIF answered 429 Too Many Requests' });
    reg.override('gleif', 'HWUPKR0MPOU8FGXBT394', { status: 500, body: '{"errors":[{"status":"500"}]}' });
    expect(await gleif().lookup('HWUPKR0MPOU8FGXBT394')).toMatchObject({ kind: 'error', reason: 'GLEIF answered HTTP 500' });
    // An answer that would come long after the test's own ceiling: only the adapter's 1 s timeout ends the wait.
    reg.override('gleif', '549300O897ZC5H7CY412', { delayMs: 120_000 });
    expect(await new GleifRegistry(`${reg.url}/gleif`, 1000).lookup('549300O897ZC5H7CY412')).toMatchObject({ kind: 'error', reason: expect.stringContaining('no answer within 1 s') });
    reg.override('gleif', '984500983AD71E4FBC41', { status: 200, body: '<html>maintenance</html>' });
    expect(await gleif().lookup('984500983AD71E4FBC41')).toMatchObject({ kind: 'error', reason: 'GLEIF answered a body that is not an LEI record' });
  });

  it('is an error, not a pass, when nothing listens at its address', async () => {
    expect(await new GleifRegistry('http://127.0.0.1:9/api', PATIENT_MS).lookup('21380068P1DRHMJ8KU70')).toMatchObject({ kind: 'error', reason: expect.stringContaining('could not be reached') });
  });
});

describe('SEC EDGAR', () => {
  it('maps a submissions record: CIK padded to 10, status unknown, a US-XX jurisdiction, former names as aliases', async () => {
    const a = await new SecEdgarRegistry(`${reg.url}/sec`, UA, PATIENT_MS).lookup('0000320193');
    expect(a.kind).toBe('found');
    if (a.kind !== 'found') return;
    expect(a.record).toMatchObject({ registry: 'sec_edgar', identifier: '0000320193', legal_name: 'Apple Inc.', status: 'unknown', jurisdiction: 'US-CA', incorporated_on: null });
    expect(a.record.source_url).toBe(`${reg.url}/sec/submissions/CIK0000320193.json`);
    expect(a.context.aliases).toEqual(['APPLE INC', 'APPLE COMPUTER INC']);
    expect(a.context.flags).toContain('latest filing 2025-08-01');
  });

  it('reads the S3-style XML 404 as not found without parsing it as JSON', async () => {
    const a = await new SecEdgarRegistry(`${reg.url}/sec`, UA, PATIENT_MS).lookup('0000000404');
    expect(a).toMatchObject({ kind: 'not_found', raw: expect.stringContaining('<Code>NoSuchKey</Code>') });
  });

  it('sends the declared User-Agent: without one the SEC answers 403, an error naming SEC_USER_AGENT', async () => {
    expect(await new SecEdgarRegistry(`${reg.url}/sec`, 'node', PATIENT_MS).lookup('0000320193')).toMatchObject({ kind: 'error', reason: expect.stringContaining('SEC_USER_AGENT') });
  });

  it('answers a 429 as rate limited and a 503 as an error', async () => {
    reg.override('sec', '0000000429', { status: 429, body: '' });
    expect(await new SecEdgarRegistry(`${reg.url}/sec`, UA, PATIENT_MS).lookup('0000000429')).toMatchObject({ kind: 'rate_limited' });
    reg.override('sec', '0000000503', { status: 503, body: '<html>busy</html>', contentType: 'text/html' });
    expect(await new SecEdgarRegistry(`${reg.url}/sec`, UA, PATIENT_MS).lookup('0000000503')).toMatchObject({ kind: 'error', reason: 'SEC EDGAR answered HTTP 503' });
  });
});

describe('Companies House', () => {
  const ch = (key = TEST_CH_KEY) => new CompaniesHouseRegistry(`${reg.url}/ch`, key, PATIENT_MS);
  it('authenticates with the key as the Basic user name and maps the profile', async () => {
    const a = await ch().lookup('04366849');
    expect(a.kind).toBe('found');
    if (a.kind !== 'found') return;
    expect(a.record).toMatchObject({
      registry: 'uk_ch',
      identifier: '04366849',
      legal_name: 'SHELL PLC',
      status: 'active',
      jurisdiction: 'GB',
      incorporated_on: '2002-02-05',
      source_url: 'https://find-and-update.company-information.service.gov.uk/company/04366849',
      registered_address: { lines: ['Shell Centre'], city: 'London', postal_code: 'SE1 7NA', country: 'United Kingdom', region: null },
    });
    expect(a.context.aliases).toEqual(['ROYAL DUTCH SHELL PLC']);
  });

  it('counts a company in liquidation as inactive, flagged as insolvency', async () => {
    const a = await ch().lookup('00006402');
    expect(a).toMatchObject({ kind: 'found', record: { status: 'inactive', legal_name: 'RENABLE PHARMA LTD' } });
    if (a.kind === 'found') expect(a.context.flags).toContain('insolvency: company status liquidation');
  });

  it('reads 404 company-profile-not-found as not found, and a refused key (401) as an error naming the variable', async () => {
    expect(await ch().lookup('01234567')).toMatchObject({ kind: 'not_found', raw: expect.stringContaining('company-profile-not-found') });
    expect(await ch('wrong-key').lookup('04366849')).toMatchObject({ kind: 'error', reason: expect.stringContaining('COMPANIES_HOUSE_API_KEY') });
  });

  it('answers a 429 as rate limited and a 500 as an error', async () => {
    reg.override('ch', '00000429', { status: 429, body: '' });
    expect(await ch().lookup('00000429')).toMatchObject({ kind: 'rate_limited' });
    reg.override('ch', '00000500', { status: 500, body: '{}' });
    expect(await ch().lookup('00000500')).toMatchObject({ kind: 'error', reason: 'Companies House answered HTTP 500' });
  });
});

describe('ABN Lookup', () => {
  const abr = (guid = TEST_ABR_GUID) => new AbnLookupRegistry(`${reg.url}/abr`, guid, PATIENT_MS);
  it('unwraps the JSONP body and maps the ABN record; business names are aliases, never the legal name', async () => {
    const a = await abr().lookup('88000014675');
    expect(a.kind).toBe('found');
    if (a.kind !== 'found') return;
    expect(a.record).toMatchObject({
      registry: 'au_abr',
      identifier: '88000014675',
      legal_name: 'WOOLWORTHS GROUP LIMITED',
      status: 'active',
      jurisdiction: 'AU-NSW',
      registered_address: { lines: [], region: 'NSW', postal_code: '2153', country: 'AU' },
      incorporated_on: null,
      source_url: 'https://abr.business.gov.au/ABN/View/88000014675',
    });
    expect(a.context.aliases).toEqual(['Woolworths Business']);
    expect(a.raw.startsWith('callback(')).toBe(true);
  });

  it("reads 'No record found' (HTTP 200) as not found, and an unrecognised GUID (HTTP 200) as an error", async () => {
    expect(await abr().lookup('51824753556')).toMatchObject({ kind: 'not_found', reason: expect.stringContaining('No record found') });
    expect(await abr('wrong').lookup('88000014675')).toMatchObject({ kind: 'error', reason: expect.stringContaining('GUID entered is not recognised') });
  });

  it('answers a 429 as rate limited, a 500 or a body that is not JSONP as an error', async () => {
    reg.override('abr', '53004085616', { status: 429, body: '' });
    expect(await abr().lookup('53004085616')).toMatchObject({ kind: 'rate_limited' });
    reg.override('abr', '26008672179', { status: 500, body: 'Server Error' });
    expect(await abr().lookup('26008672179')).toMatchObject({ kind: 'error', reason: 'ABN Lookup answered HTTP 500' });
    reg.override('abr', '74172177893', { status: 200, body: 'callback({"Abn":' });
    expect(await abr().lookup('74172177893')).toMatchObject({ kind: 'error', reason: 'ABN Lookup answered a body that is not an ABN record' });
  });

  it('unwraps JSONP with any callback name, and leaves plain JSON alone', () => {
    expect(unwrapJsonp(' cb_1({"a":"(x)"});\n')).toBe('{"a":"(x)"}');
    expect(unwrapJsonp('{"a":1}')).toBe('{"a":1}');
  });
});
