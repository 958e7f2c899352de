import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageImage } from '../../bench/checks/face-images';
import { answerChallenge, openPage, pageCall, upload, type PageSession } from '../helpers/hosted-client';
import { answerableChallenge, answerChallengeWithVideo } from '../helpers/live-capture';
import { checkOf, decided } from '../helpers/live-session';
import { SimulatedWallet, type WalletPerson } from '../helpers/simulated-wallet';
import { freshCertificateAuthority, type CertificateAuthority } from '../helpers/test-pki';
import { cli, createTenant, http, ROOT, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * D24 above T1, through the started server: the digital ID is the session's document, and the higher tiers
 * add their checks on it as they do on a photographed document. T2 adds liveness (real frames of the person
 * whose portrait the credential carries); T3 asks for the nationality too and screens the credential's name,
 * birth date and nationality against the loaded sanctions list. The T3 server has its liveness engine
 * switched off (an error, which screening runs after; T3's own liveness is T2's, shown below on a server of
 * its own with the embedded engine).
 */
const SANCTIONS = path.join(ROOT, 'test', 'fixtures', 'sanctions');
const franck = packageImage('franck_02221.jpg').bytes;
// MORENO is on the OFAC SDN excerpt (test/fixtures/sanctions/sdn.csv, entry 15102, DOB 12 Oct 1972); ERIKSSON on no list.
const MORENO: WalletPerson = { family_name: 'MORENO', given_name: 'DANIEL', birth_date: '1972-10-12', portrait: franck, document_number: 'BZ0291622', expiry_date: '2031-01-01', issuing_country: 'UT', nationality: 'BZ' };
const ERIKSSON: WalletPerson = { family_name: 'ERIKSSON', given_name: 'ANNA MARIA', birth_date: '1986-05-02', portrait: franck, document_number: 'SE7730142', expiry_date: '2031-01-01', issuing_country: 'UT', nationality: 'SE' };

let server: TestServer;
let acme: Tenant;
let operatorCa: CertificateAuthority;

/** A server as `npm start` starts it, with an operator IACA trusted for live sessions and the OFAC excerpt loaded. */
async function startWithTrust(extra: NodeJS.ProcessEnv): Promise<{ server: TestServer; acme: Tenant }> {
  const env = testEnv({ CHECK_WORKERS: '1', CHECK_DOCUMENT_ENGINE: 'off', CHECK_ANTI_SPOOF_ENGINE: 'off', SANCTIONS_POLL_SECONDS: '0.5', ...extra });
  delete env.DATABASE_URL; // its own embedded database: on a shared one other files load other lists
  delete env.JOB_SCHEMA;
  const started = await startServer(env);
  const pem = path.join(mkdtempSync(path.join(tmpdir(), 'digital-id-tiers-')), 'operator.pem');
  writeFileSync(pem, operatorCa.certificatePem);
  for (const kind of ['iaca', 'sd-jwt-vc-issuer']) {
    const added = await cli(started.env, ['trust', 'add', '--environment', 'live', '--kind', kind, '--pem', pem, '--json']);
    if (added.code !== 0) throw new Error(`trust add: ${added.stderr} ${added.stdout}`);
  }
  const loaded = await cli(started.env, ['sanctions', 'load', '--list', 'ofac', '--file', path.join(SANCTIONS, 'sdn.csv'), '--alt', path.join(SANCTIONS, 'alt.csv'), '--json']);
  if (loaded.code !== 0) throw new Error(`sanctions load: ${loaded.stderr}`);
  return { server: started, acme: await createTenant(started) };
}

beforeAll(() => {
  operatorCa = freshCertificateAuthority('Operator IACA');
});

/** The service's public URLs, where this server listens. */
const rebase = (url: string) => `${server.url}${new URL(url).pathname}${new URL(url).search}`;

/** A live session whose page took a digital ID from `person`'s wallet across devices, and a selfie. */
async function answeredWithDigitalId(tier: string, person: WalletPerson, credential: 'mdl' | 'pid_mdoc' | 'pid_sd_jwt'): Promise<{ page: PageSession; asked: string[] }> {
  const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier } });
  expect(created.status).toBe(201);
  const page = await openPage(server, created.body);
  expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
  const request = await pageCall(server, page, 'POST', 'digital-id/requests');
  expect(request.status).toBe(201);
  const asked = (request.body.dc_api.data.dcql_query.credentials as { id: string; claims: { path: string[] }[] }[])
    .find((c) => c.id === credential)!
    .claims.map((c) => c.path[c.path.length - 1]);
  const answered = await new SimulatedWallet(person, undefined, operatorCa).answerOpenid4vpLink(request.body.cross_device.link, { credential, rebase });
  expect(await answered.json()).toEqual({ status: 'verified' });
  expect((await upload(server, page, { class: 'selfie_image' }, packageImage('franck_04000.jpg').bytes, 'image/jpeg')).status).toBe(201);
  return { page, asked };
}

describe('T3 on a digital ID', () => {
  beforeAll(async () => {
    ({ server, acme } = await startWithTrust({ CHECK_LIVENESS_ENGINE: 'off' }));
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  /** The liveness frames (judged by no engine here) and the identity step, as the T3 page takes them; then submit. */
  async function livenessIdentityAndSubmit(page: PageSession, person: WalletPerson): Promise<void> {
    const challenge = await pageCall(server, page, 'POST', 'challenge');
    await answerChallenge(server, page, challenge.body, 2);
    const identity = { given_names: person.given_name, surname: person.family_name, date_of_birth: person.birth_date };
    expect((await http(server, 'PUT', `/v1/hosted/sessions/${page.id}/identity`, { headers: { authorization: `Bearer ${page.credential}` }, json: identity })).status).toBe(200);
    expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);
  }
  it('asks for the nationality and screens the credential holder: a listed person goes to review with the hit', async () => {
    const { page, asked } = await answeredWithDigitalId('T3', MORENO, 'pid_mdoc');
    expect(asked).toContain('nationality');
    await livenessIdentityAndSubmit(page, MORENO);
    const s = await decided(server, acme.live_api_key, page.id);
    expect(s.result.checks.map((c: { name: string }) => c.name)).toEqual(['digital_id', 'face_match', 'liveness', 'anti_spoof', 'sanctions_screening']);
    expect(checkOf(s, 'digital_id')).toMatchObject({ status: 'pass' });
    expect(checkOf(s, 'face_match')).toMatchObject({ status: 'pass' });
    expect(checkOf(s, 'sanctions_screening')).toMatchObject({ status: 'fail' });
    expect(s.result.sanctions_hits).toEqual(expect.arrayContaining([expect.objectContaining({ list: 'ofac', entry_id: '15102', matched_name: expect.stringMatching(/MORENO/i) })]));
    expect(s.status).toBe('manual_review');
    expect(s.result.badges).not.toContain('sanctions_clear');
  });

  it('clears a person on no list, from the SD-JWT VC PID as well', async () => {
    const { page, asked } = await answeredWithDigitalId('T3', ERIKSSON, 'pid_sd_jwt');
    expect(asked).toContain('nationalities');
    await livenessIdentityAndSubmit(page, ERIKSSON);
    const s = await decided(server, acme.live_api_key, page.id);
    expect(checkOf(s, 'sanctions_screening')).toMatchObject({ status: 'pass' });
    expect(s.result.sanctions_hits).toEqual([]);
  });

  it('asks a T1 session for no nationality', async () => {
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T1' } });
    const page = await openPage(server, created.body);
    await pageCall(server, page, 'POST', 'start');
    const request = await pageCall(server, page, 'POST', 'digital-id/requests');
    const paths = JSON.stringify(request.body.dc_api.data.dcql_query);
    expect(paths).not.toMatch(/nationalit/);
  });
});

describe('T2 on a digital ID', () => {
  beforeAll(async () => {
    // The embedded liveness engine; a loaded machine gets more than the default minute per check.
    ({ server, acme } = await startWithTrust({ CHECK_TIMEOUT_SECONDS: '300' }));
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('adds liveness on real frames of the credential holder: digital_id, face match and liveness pass', async () => {
    const { page } = await answeredWithDigitalId('T2', ERIKSSON, 'mdl');
    const { challenge } = await answerableChallenge(server, page);
    await answerChallengeWithVideo(server, page, challenge);
    expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);
    const s = await decided(server, acme.live_api_key, page.id, 240_000);
    expect(s.result.checks.map((c: { name: string }) => c.name)).toEqual(['digital_id', 'face_match', 'liveness', 'anti_spoof']);
    expect(checkOf(s, 'digital_id')).toMatchObject({ status: 'pass' });
    expect(checkOf(s, 'face_match')).toMatchObject({ status: 'pass' });
    expect(checkOf(s, 'liveness')).toMatchObject({ status: 'pass', reason: expect.stringMatching(/^Every step \(.+\) was performed inside its window/) });
    // The anti-spoof engine is switched off here: an error a person judges, never a pass.
    expect(checkOf(s, 'anti_spoof')).toMatchObject({ status: 'error' });
    expect(s.status).toBe('manual_review');
  }, 300_000);
});
