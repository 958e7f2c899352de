import { dbClient, openPage, pageCall } from '../helpers/hosted-client';
import { holdTestClock } from '../helpers/test-clock';
import { captureAndSubmit, checkOf, decided, passportFields, passportPhoto } from '../helpers/live-session';
import { startRegistryServer, type RegistryServer } from '../helpers/registry-server';
import { createTenant, http, loggedLine, startServer, testEnv, type Tenant, type TestServer, ENGINES_OFF } from '../helpers/test-server';
import { expectToMatchContract } from '../helpers/openapi-contract';

/**
 * T4 through the server as `npm start` starts it (docs/checks.md, "Business registries"), with the
 * four registries served locally in their documented shapes (test/helpers/registry-server.ts): the
 * registry checks decide a live session from those answers, all four run whatever the others found, and
 * ABN Lookup, left without its GUID, is switched off with that reason. The capture engines are off,
 * so a session that passes its registries still goes to a person; one that fails them is declined.
 */
let reg: RegistryServer;
let server: TestServer;
let acme: Tenant;
const HOLDER = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };
const IDENTITY = { given_names: HOLDER.givenNames, surname: HOLDER.surname, date_of_birth: HOLDER.dateOfBirth };

beforeAll(async () => {
  reg = await startRegistryServer();
  const { ABR_GUID: _withoutGuid, ...registries } = reg.env;
  server = await startServer(
    testEnv({ ...registries, RATE_LIMIT_ENABLED: 'false', ...ENGINES_OFF }),
  );
  acme = await createTenant(server);
});
afterAll(async () => {
  await server?.stop();
  await reg?.close();
});

const t4 = async (key: string, business: Record<string, string>) => {
  const { id } = await captureAndSubmit(server, key, 'T4', { document: await passportPhoto(passportFields(HOLDER)), identity: IDENTITY, business });
  return decided(server, key, id);
};

it('lists each registry in /healthz: the local ones called, ABN Lookup switched off for want of ABR_GUID', async () => {
  const h = await http(server, 'GET', '/healthz');
  expectToMatchContract('GET', '/healthz', h);
  expect(h.body.business_registries).toEqual({
    // The origin only: a registry's URL can hold credentials, and /healthz needs none (docs/security.md, "Health and readiness probes").
    gleif: { enabled: true, url: new URL(reg.url).origin },
    sec_edgar: { enabled: true, url: new URL(reg.url).origin },
    uk_ch: { enabled: true, url: new URL(reg.url).origin },
    au_abr: { enabled: false, reason: 'ABN Lookup is switched off: ABR_GUID is not set' },
  });
});

it('waits in the job queue while a registry answers 429, then decides from its record, never an error for the wait', async () => {
  // First of the GLEIF lookups: the server's 6-hour cache has nothing for this LEI yet.
  const before = reg.hits.gleif.length;
  reg.override('gleif', '21380068P1DRHMJ8KU70', { status: 429, body: '{"errors":[{"status":"429","title":"Too Many Requests"}]}', headers: { 'retry-after': '2' }, times: 2 });
  const s = await t4(acme.live_api_key, { legal_name: 'Shell plc', lei: '21380068P1DRHMJ8KU70' });
  expect(reg.hits.gleif.length - before).toBeGreaterThanOrEqual(3); // two 429s, then the record
  expect(checkOf(s, 'lei_registry')).toMatchObject({ status: 'pass', verdict: 'pass' });
  await loggedLine(server, 'checks wait for room'); // logged seconds before the decision, but written up to 200 ms late (later on a loaded machine)
});

it('passes the LEI and the UK company number of an active company, skips the registries not asked, and keeps every answer as evidence', async () => {
  const s = await t4(acme.live_api_key, { legal_name: 'Shell plc', country: 'GB', lei: '21380068P1DRHMJ8KU70', uk_company_number: '4366849' });
  expectToMatchContract('GET', '/v1/verify/sessions/{id}', await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.live_api_key }));
  expect(checkOf(s, 'lei_registry')).toMatchObject({ status: 'pass', verdict: 'pass', reason: expect.stringContaining('GLEIF record: SHELL PLC, status active, GB (https://api.gleif.org/api/v1/lei-records/21380068P1DRHMJ8KU70)') });
  expect(checkOf(s, 'lei_registry').details.record).toMatchObject({ registry: 'gleif', identifier: '21380068P1DRHMJ8KU70', legal_name: 'SHELL PLC', status: 'active', jurisdiction: 'GB' });
  expect(checkOf(s, 'uk_company_register')).toMatchObject({ status: 'pass', verdict: 'pass', reason: expect.stringContaining('Companies House record: SHELL PLC, status active') });
  expect(checkOf(s, 'sec_filings')).toMatchObject({ status: 'skipped', verdict: 'skipped', reason: 'No CIK was given, so SEC EDGAR was not asked' });
  expect(checkOf(s, 'au_business_register')).toMatchObject({ status: 'skipped', reason: 'No ABN was given, so ABN Lookup was not asked' });
  // The capture engines are off: a person decides, but the registries earned nothing they did not check.
  expect(s.status).toBe('manual_review');
  expect(checkOf(s, 'document_ocr')).toMatchObject({ status: 'error' });
  const db = await dbClient(server);
  try {
    const rows = (await db.query(`SELECT class, content_type FROM artifacts WHERE session_id = $1 AND class = 'registry_record'`, [s.id])).rows;
    expect(rows).toHaveLength(2);
  } finally {
    await db.end();
  }
});

it('declines a company in liquidation, and still runs and reports every registry given', async () => {
  const hitsBefore = reg.hits.gleif.length;
  const s = await t4(acme.live_api_key, { legal_name: 'Renable Pharma Ltd', country: 'GB', uk_company_number: '00006402', lei: '5493001KJTIIGC8Y1R12', cik: '0000320193' });
  expect(checkOf(s, 'uk_company_register')).toMatchObject({ status: 'fail', verdict: 'fail', reason: expect.stringContaining('the company is not active') });
  expect(checkOf(s, 'lei_registry')).toMatchObject({ status: 'fail', reason: expect.stringContaining('GLEIF has no LEI record 5493001KJTIIGC8Y1R12') });
  expect(checkOf(s, 'sec_filings')).toMatchObject({ status: 'fail', verdict: 'fail', reason: expect.stringContaining('"Renable Pharma Ltd", does not match') });
  expect(reg.hits.gleif.length).toBe(hitsBefore + 1);
  expect(s.status).toBe('failed');
  expect(s.result.decision).toBe('declined');
  expect(s.result.badges).not.toContain('business');
});

it('sends a registry error, the SEC (no status) and a switched-off registry to review with their reasons, never to a pass', async () => {
  reg.override('ch', '00000500', { status: 500, body: '{}' });
  const s = await t4(acme.live_api_key, { legal_name: 'Apple Inc.', uk_company_number: '00000500', cik: '320193', abn: '88000014675' });
  expect(checkOf(s, 'uk_company_register')).toMatchObject({ status: 'error', verdict: 'error', reason: 'Companies House answered HTTP 500' });
  expect(checkOf(s, 'sec_filings')).toMatchObject({ status: 'fail', verdict: 'review', reason: expect.stringContaining('EDGAR has no company status') });
  expect(checkOf(s, 'au_business_register')).toMatchObject({ status: 'error', reason: 'ABN Lookup is switched off: ABR_GUID is not set' });
  expect(s.status).toBe('manual_review');
  expect(s.result.badges).not.toContain('business');
});

it('refuses a bad identifier at the business step, and no request for it reaches a registry', async () => {
  const before = { ...reg.hits, gleif: reg.hits.gleif.length, abr: reg.hits.abr.length };
  const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T4' } });
  const page = await openPage(server, created.body);
  await pageCall(server, page, 'POST', 'start');
  const bad = await http(server, 'PUT', `/v1/hosted/sessions/${page.id}/business`, { headers: { authorization: `Bearer ${page.credential}` }, json: { legal_name: 'Shell plc', lei: '21380068P1DRHMJ8KU71' } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.fields).toEqual([{ field: 'lei', code: 'invalid_checksum', message: expect.any(String) }]);
  expect(reg.hits.gleif.length).toBe(before.gleif);
});

/**
 * A test T4 session whose page gives its business before the clock decides (D22: the clock decides at 10 s,
 * whatever the page does; the business step is one call). The session's clock is held while the page gives it
 * (test/helpers/test-clock.ts), so a loaded machine cannot make the call late (issue 47).
 */
const t4TestMode = async (business: Record<string, string>) => {
  for (;;) {
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T4' } });
    expect(created.status).toBe(201);
    const clock = await holdTestClock(server, created.body.id, 'processing');
    if (!clock) continue;
    const page = await openPage(server, created.body);
    await pageCall(server, page, 'POST', 'start');
    const given = await http(server, 'PUT', `/v1/hosted/sessions/${page.id}/business`, { headers: { authorization: `Bearer ${page.credential}` }, json: business });
    await clock.release();
    expect(given.status).toBeLessThan(300);
    return decided(server, acme.test_api_key, created.body.id);
  }
};

it('in test mode, the identifier decides: an active company passes with the business badge, the inactive test number declines', async () => {
  const ok = await t4TestMode({ legal_name: 'Acme Widgets Ltd', country: 'GB', uk_company_number: '12345678' });
  expect(checkOf(ok, 'uk_company_register')).toMatchObject({ status: 'pass', reason: expect.stringContaining('Companies House record: Acme Widgets Ltd, status active, GB') });
  expect(ok.status).toBe('success');
  expect(ok.result.badges).toContain('business');
  const inactive = await t4TestMode({ legal_name: 'Acme Widgets Ltd', country: 'GB', uk_company_number: '99999901' });
  expect(checkOf(inactive, 'uk_company_register')).toMatchObject({ status: 'fail', reason: expect.stringContaining('not active') });
  expect(inactive.status).toBe('failed');
});
