import path from 'node:path';
import { buildMrz } from '../../bench/checks/mrz-lines';
import { packageImage } from '../../bench/checks/face-images';
import { captureAndSubmit, checkOf, decided, passportFields, passportPhoto } from '../helpers/live-session';
import { cli, createTenant, http, ROOT, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * Live verification as shipped: the built server started as `npm start` starts it, configured only
 * through its environment, with nothing injected. Live sessions go through the hosted API the way
 * the page sends them, and the engines the composition root builds from CHECK_*_ENGINE decide.
 */
const SANCTIONS = path.join(ROOT, 'test', 'fixtures', 'sanctions');

// Two people on the OFAC SDN excerpt (test/fixtures/sanctions/sdn.csv), as a passport's MRZ prints them.
const MORENO = { surname: 'MORENO', givenNames: 'DANIEL', dateOfBirth: '1972-10-12', nationality: 'BLZ', documentNumber: 'BZ1029384' };
const KHOROSHEV = { surname: 'KHOROSHEV', givenNames: 'DMITRY YURYEVICH', dateOfBirth: '1993-04-17', nationality: 'RUS', documentNumber: 'RU4857201' };
const CLEAN = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };

/** Pairs of sessions the concurrency test decides at once; the measurement runs 50 (LIVE_SANCTIONS_PAIRS=50). */
const PAIRS = Number(process.env.LIVE_SANCTIONS_PAIRS ?? 2);

const identityOf = (h: { surname: string; givenNames: string; dateOfBirth: string }) => ({ given_names: h.givenNames, surname: h.surname, date_of_birth: h.dateOfBirth });

describe('live T1 with the default (embedded) engines', () => {
  let server: TestServer;
  let acme: Tenant;

  beforeAll(async () => {
    server = await startServer(testEnv({ CHECK_WORKERS: '1' }));
    acme = await createTenant(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('says in /healthz which engine runs each check; the offline models load on the first live check', async () => {
    const h = await http(server, 'GET', '/healthz');
    expect(h.status).toBe(200);
    expect(h.body.check_engines).toEqual({ document: 'embedded', face_match: 'embedded', liveness: 'embedded', anti_spoof: 'embedded', embedded_models: 'idle' });
  });

  it('passes a passport photo whose MRZ is right and whose holder took the selfie, with checks from the engines', async () => {
    const fields = passportFields(CLEAN);
    const { id } = await captureAndSubmit(server, acme.live_api_key, 'T1', { document: await passportPhoto(fields) });
    const s = await decided(server, acme.live_api_key, id);
    expect(checkOf(s, 'document_ocr')).toMatchObject({ status: 'pass' });
    expect(checkOf(s, 'face_match')).toMatchObject({ status: 'pass' });
    expect(s).toMatchObject({ status: 'success', livemode: true, result: { decision: 'approved', achieved_tier: 'T1', badges: ['photo'] } });
    expect(s.result.signals.map((x: { source: string }) => x.source)).toEqual(expect.arrayContaining([expect.stringMatching(/^embedded\/tesseract/), expect.stringMatching(/^embedded\/human/)]));
    expect((await http(server, 'GET', '/healthz')).body.check_engines).toMatchObject({ embedded_models: 'ready', embedded_workers: 1 });
  });

  it('fails a passport whose MRZ has an altered check digit, with the reason', async () => {
    const fields = passportFields({ ...CLEAN, documentNumber: 'SE7730143' });
    const mrz = buildMrz(fields);
    // The document number's check digit (line 2, position 10) changed to another digit.
    const digit = mrz[1][9];
    mrz[1] = `${mrz[1].slice(0, 9)}${(Number(digit) + 3) % 10}${mrz[1].slice(10)}`;
    const { id } = await captureAndSubmit(server, acme.live_api_key, 'T1', { document: await passportPhoto(fields, { mrz }) });
    const s = await decided(server, acme.live_api_key, id);
    expect(s).toMatchObject({ status: 'failed', result: { decision: 'declined' } });
    expect(checkOf(s, 'document_ocr')).toMatchObject({ status: 'fail', reason: expect.stringMatching(/check digit/i) });
  });

  it('sends a document photo on which no machine-readable zone is found to a person, not to a decline (issue 42)', async () => {
    // A photo of the holder instead of a document: nothing the reader could check, so nothing shown false.
    const { id } = await captureAndSubmit(server, acme.live_api_key, 'T1', { document: packageImage('franck_04000.jpg') });
    const s = await decided(server, acme.live_api_key, id);
    expect(checkOf(s, 'document_ocr')).toMatchObject({ verdict: 'review', reason: expect.stringMatching(/machine-readable zone|MRZ/i) });
    expect(s).toMatchObject({ status: 'manual_review', result: { decision: 'review' } });
  });
});

describe('live T3 screens the name read from the MRZ against the loaded lists', () => {
  let server: TestServer;
  let acme: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    // Liveness and anti-spoof switched off on purpose: their checks are `error` (a person decides), and
    // the sanctions check still runs on what the document says.
    server = await startServer(testEnv({ CHECK_WORKERS: '1', CHECK_LIVENESS_ENGINE: 'off', CHECK_ANTI_SPOOF_ENGINE: 'off', CHECK_FACE_MATCH_ENGINE: 'off' }));
    [acme, other] = [await createTenant(server, 'acme'), await createTenant(server, 'other')];
    const loaded = await cli(server.env, ['sanctions', 'load', '--list', 'ofac', '--file', path.join(SANCTIONS, 'sdn.csv'), '--alt', path.join(SANCTIONS, 'alt.csv'), '--add', path.join(SANCTIONS, 'add.csv'), '--json']);
    expect(loaded.code).toBe(0);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('names a switched-off engine in /healthz and in the check it leaves to a person', async () => {
    expect((await http(server, 'GET', '/healthz')).body.check_engines).toMatchObject({ liveness: 'off', anti_spoof: 'off', face_match: 'off', document: 'embedded' });
  });

  it('gets hits with the lists’ references for a listed name, and a clean name passes the screening', async () => {
    const [listed, clean] = await Promise.all(
      [MORENO, CLEAN].map(async (holder) => {
        const { id } = await captureAndSubmit(server, acme.live_api_key, 'T3', { document: await passportPhoto(passportFields(holder)), identity: identityOf(holder) });
        return decided(server, acme.live_api_key, id);
      }),
    );
    expect(checkOf(listed, 'document_ocr')).toMatchObject({ status: 'pass' });
    expect(checkOf(listed, 'sanctions_screening')).toMatchObject({ status: 'fail', reason: expect.stringMatching(/possible match/) });
    expect(listed.result.sanctions_hits).toEqual(expect.arrayContaining([expect.objectContaining({ list: 'ofac', entry_id: '15102', reference: expect.any(String), matched_name: expect.stringMatching(/MORENO/i) })]));
    expect(listed.status).toBe('manual_review');
    expect(checkOf(listed, 'liveness')).toMatchObject({ status: 'error', reason: expect.stringContaining('CHECK_LIVENESS_ENGINE=off') });

    expect(checkOf(clean, 'sanctions_screening')).toMatchObject({ status: 'pass', reason: expect.stringMatching(/No match/) });
    expect(clean.result.sanctions_hits).toEqual([]);
  });

  it('never gives one session another’s hits when sessions of two tenants are decided at once', async () => {
    const documents = { moreno: await passportPhoto(passportFields(MORENO)), khoroshev: await passportPhoto(passportFields(KHOROSHEV)) };
    for (let i = 0; i < PAIRS; i++) {
      const [a, b] = await Promise.all([
        captureAndSubmit(server, acme.live_api_key, 'T3', { document: documents.moreno, identity: identityOf(MORENO) }),
        captureAndSubmit(server, other.live_api_key, 'T3', { document: documents.khoroshev, identity: identityOf(KHOROSHEV) }),
      ]);
      const [sa, sb] = await Promise.all([decided(server, acme.live_api_key, a.id), decided(server, other.live_api_key, b.id)]);
      const ids = (s: { result: { sanctions_hits: { entry_id: string }[] } }) => new Set(s.result.sanctions_hits.map((h) => h.entry_id));
      expect(ids(sa).has('15102')).toBe(true);
      expect(ids(sa).has('48603')).toBe(false);
      expect(ids(sb).has('48603')).toBe(true);
      expect(ids(sb).has('15102')).toBe(false);
    }
  }, 60_000 + PAIRS * 30_000);
});
