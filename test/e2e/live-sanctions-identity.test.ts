import path from 'node:path';
import { captureAndSubmit, checkOf, decided, passportFields, passportPhoto } from '../helpers/live-session';
import { cli, createTenant, ROOT, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * Live T3 through the server as `npm start` starts it (docs/sanctions.md, "Whom a live session
 * screens"): with no list loaded the check is an error with its reason; once a list is loaded the
 * identity confirmed on the hosted page is screened as well as the MRZ's when the two differ.
 */
const SANCTIONS = path.join(ROOT, 'test', 'fixtures', 'sanctions');
// MORENO is on the OFAC SDN excerpt (test/fixtures/sanctions/sdn.csv, entry 15102); ERIKSSON is on no list.
const MORENO = { given_names: 'DANIEL', surname: 'MORENO', date_of_birth: '1972-10-12' };
const ERIKSSON = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };

let server: TestServer;
let acme: Tenant;

beforeAll(async () => {
  const env = testEnv({ CHECK_WORKERS: '1', CHECK_LIVENESS_ENGINE: 'off', CHECK_ANTI_SPOOF_ENGINE: 'off', CHECK_FACE_MATCH_ENGINE: 'off', SANCTIONS_POLL_SECONDS: '0.5' });
  delete env.DATABASE_URL; // its own embedded database: on a shared one other files have loaded lists
  delete env.JOB_SCHEMA;
  server = await startServer(env);
  acme = await createTenant(server);
});
afterAll(async () => {
  await server?.stop();
});

it("is an error with the reason 'sanctions lists not loaded' while no list is loaded, never a pass", async () => {
  const { id } = await captureAndSubmit(server, acme.live_api_key, 'T3', { document: await passportPhoto(passportFields(ERIKSSON)), identity: { given_names: ERIKSSON.givenNames, surname: ERIKSSON.surname, date_of_birth: ERIKSSON.dateOfBirth } });
  const s = await decided(server, acme.live_api_key, id);
  expect(checkOf(s, 'sanctions_screening')).toEqual({ name: 'sanctions_screening', status: 'error', verdict: 'error', reason: 'sanctions lists not loaded' });
  expect(s.result.badges).not.toContain('sanctions_clear');
  expect(s.status).not.toBe('approved');
});

it('screens the identity confirmed on the hosted page too when it differs from the MRZ', async () => {
  const loaded = await cli(server.env, ['sanctions', 'load', '--list', 'ofac', '--file', path.join(SANCTIONS, 'sdn.csv'), '--alt', path.join(SANCTIONS, 'alt.csv'), '--json']);
  expect(loaded.code).toBe(0);
  // A clean passport, and a listed person's name typed on the identity step.
  const { id } = await captureAndSubmit(server, acme.live_api_key, 'T3', { document: await passportPhoto(passportFields(ERIKSSON)), identity: MORENO });
  const s = await decided(server, acme.live_api_key, id);
  expect(checkOf(s, 'document_ocr')).toMatchObject({ status: 'pass' });
  expect(checkOf(s, 'sanctions_screening')).toMatchObject({ status: 'fail', reason: expect.stringContaining("Screened both the document's MRZ and the identity confirmed on the hosted page") });
  expect(s.result.sanctions_hits).toEqual(expect.arrayContaining([expect.objectContaining({ list: 'ofac', entry_id: '15102', matched_name: expect.stringMatching(/MORENO/i) })]));
  expect(s.status).toBe('manual_review');
});
