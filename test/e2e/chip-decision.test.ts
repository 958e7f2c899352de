import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { Client } from 'pg';
import { renderDocument } from '../../bench/checks/synthetic-document';
import type { MrzFields } from '../../src/checks/check-providers';
import { portraitFromDg2 } from '../../src/chip/dg2-portrait';
import { jpeg2000ToPng } from '../../src/chip/jpeg2000.decoder';
import { fixture, ICAO_FIXTURES } from '../fixtures/icao/icao.fixtures';
import { answerChallenge, dbClient, jpegBytes, openPage, PageSession, pageCall, pngBytes, upload } from '../helpers/hosted-client';
import { holdTestClock, hurryTestClock } from '../helpers/test-clock';
import { cli, createTenant, ENGINES_OFF, eventually, http, HttpResult, startServer, Tenant, testEnv, TestServer } from '../helpers/test-server';

/**
 * T5 as one decision (docs/chip.md, "The route and what follows"), through the built server. Live:
 * the page's captures and the chip, in either order, make one run of the checks and one decision;
 * the gate is shown with every engine off (what is decided is a person's, what is proved is the
 * order and the count), and the decision itself with the embedded engines, DG1 compared to the MRZ
 * read from a rendered document and DG2 (JPEG 2000, decoded by the service) matched with the selfie.
 * Test mode (D22): the session's clock decides at 10 s and folds in the chip read before its
 * `processing` step, with its real Passive Authentication.
 */

const REASON = 'Document is genuine and unmodified per ICAO 9303 Passive Authentication.';
const DG1 = fixture('synthetic', 'EF_DG1.bin');
const DG2 = fixture('synthetic', 'EF_DG2.bin');
const DG1_TAMPERED = fixture('synthetic', 'negative_EF_DG1_tampered.bin');
const SOD = fixture('synthetic', 'ecdsa_p256_named_sha256', 'EF_SOD.bin');
const b64 = (bytes: Buffer) => bytes.toString('base64');
const chipBody = (groups: Record<number, Buffer>) => ({ sod: b64(SOD), data_groups: Object.fromEntries(Object.entries(groups).map(([n, g]) => [n, b64(g)])) });

/** A started server that trusts the synthetic CSCA, with a tenant and a database connection. */
type Stage = { server: TestServer; tenant: Tenant; db: Client };

async function stage(env: NodeJS.ProcessEnv, tenantName: string): Promise<Stage> {
  const server = await startServer(env);
  const trusted = await cli(server.env, ['csca', 'import', '--trust-certificate', path.join(ICAO_FIXTURES, 'synthetic', 'ecdsa_p256_named_sha256', 'CSCA.der'), '--json']);
  if (trusted.code !== 0) throw new Error(`csca import failed: ${trusted.stderr}`);
  return { server, tenant: await createTenant(server, tenantName), db: await dbClient(server) };
}

async function unstage(st: Stage | undefined): Promise<void> {
  await st?.db.end();
  await st?.server.stop();
}

/** Every engine off and one check worker, as a small deployment runs: the gate and the test-mode clock need no models. */
let gate: Stage;

beforeAll(async () => {
  gate = await stage(testEnv({ CHECK_WORKERS: '1', ...ENGINES_OFF }), 'chip-decision');
});
afterAll(async () => {
  await unstage(gate);
});

type Created = { id: string; client_secret: string; hosted_url: string };

async function createSession(st: Stage, key: string, metadata: Record<string, unknown> = {}): Promise<Created> {
  const r = await http(st.server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T5', metadata } });
  expect(r.status).toBe(201);
  return r.body as Created;
}

const submitChip = (st: Stage, s: Created, groups: Record<number, Buffer>): Promise<HttpResult> =>
  http(st.server, 'POST', `/v1/verify/sessions/${s.id}/chip`, { key: s.client_secret, json: chipBody(groups) });

type Capture = { bytes: Buffer; contentType: string };

/** The page's web steps: document, selfie, every liveness step; the app handoff ends them (the T5 page never calls submit). */
async function captureOnPage(st: Stage, page: PageSession, document: Capture, selfie: Capture): Promise<HttpResult> {
  expect((await upload(st.server, page, { class: 'id_document_image' }, document.bytes, document.contentType)).status).toBe(201);
  expect((await upload(st.server, page, { class: 'selfie_image' }, selfie.bytes, selfie.contentType)).status).toBe(201);
  await answerChallenge(st.server, page, (await pageCall(st.server, page, 'POST', 'challenge')).body, 2);
  const handoff = await pageCall(st.server, page, 'POST', 'app-handoff');
  expect(handoff.status).toBe(200);
  return handoff;
}

async function startedPage(st: Stage, s: Created): Promise<PageSession> {
  const page = await openPage(st.server, s);
  expect((await pageCall(st.server, page, 'POST', 'start')).status).toBe(200);
  return page;
}

const junk = { document: { bytes: pngBytes(16, 10), contentType: 'image/png' }, selfie: { bytes: jpegBytes(3000, 5), contentType: 'image/jpeg' } };

async function decided(st: Stage, s: Created, key: string, timeoutMs = 60_000): Promise<any> {
  return eventually(async () => {
    const r = await http(st.server, 'GET', `/v1/verify/sessions/${s.id}`, { key });
    return ['success', 'failed', 'manual_review'].includes(r.body.status) ? r.body : undefined;
  }, timeoutMs);
}

/** Every status the session took, from its outbox: one decision means one `processing` and one final status. */
async function statusHistory(st: Stage, id: string): Promise<string[]> {
  const rows = await st.db.query(`SELECT payload->>'status' AS status FROM outbox_events WHERE session_id = $1 AND type = 'session.status_changed' ORDER BY seq`, [id]);
  return rows.rows.map((r: { status: string }) => r.status);
}

/** The session's decision history (D16): one decision is one automated row. */
async function decisions(st: Stage, id: string): Promise<string[][]> {
  const rows = await st.db.query(`SELECT source, from_status, to_status FROM session_decisions WHERE session_id = $1 ORDER BY decided_at`, [id]);
  return rows.rows.map((r: { source: string; from_status: string; to_status: string }) => [r.source, r.from_status, r.to_status]);
}

const checks = (body: any) => body.result.checks.map((c: { name: string; status: string }) => [c.name, c.status]);
const chipCheck = (body: any) => body.result.checks.find((c: { name: string }) => c.name === 'chip_passive_authentication');
/** With every engine off a live session's capture checks cannot tell, and a person decides. */
const ENGINES_OFF_CHECKS = [
  ['document_ocr', 'error'],
  ['face_match', 'error'],
  ['liveness', 'error'],
  ['anti_spoof', 'error'],
  ['chip_passive_authentication', 'error'],
];

describe('a live T5 session through the page: the captures and the chip make one decision', () => {
  it('captures first, then the chip: waits in_progress for the chip, then one run of the checks and one decision', async () => {
    const key = gate.tenant.live_api_key;
    const s = await createSession(gate, key);
    const page = await startedPage(gate, s);
    await captureOnPage(gate, page, junk.document, junk.selfie);
    const waiting = await pageCall(gate.server, page, 'GET', '');
    expect(waiting.body).toMatchObject({ status: 'in_progress', submitted: true, captured: { id_document_image: 1, selfie_image: 1 } });
    // Nothing is decided from the captures alone.
    expect((await http(gate.server, 'GET', `/v1/verify/sessions/${s.id}`, { key })).body.status).toBe('in_progress');
    // What was submitted is what the checks read: no capture and no new challenge while the chip is awaited.
    const late = await upload(gate.server, page, { class: 'id_document_image' }, pngBytes(8, 8), 'image/png');
    expect({ status: late.status, code: late.body.error.code }).toEqual({ status: 409, code: 'invalid_state' });
    expect((await pageCall(gate.server, page, 'POST', 'challenge')).status).toBe(409);

    const chip = await submitChip(gate, s, { 1: DG1, 2: DG2 });
    expect(chip.status).toBe(200);
    expect(chip.body.status).toBe('processing'); // the captures were there: the chip completes the pair
    const done = await decided(gate, s, key);
    expect(done).toMatchObject({ status: 'manual_review', result: { decision: 'review' } });
    expect(checks(done)).toEqual(ENGINES_OFF_CHECKS);
    // The chip's own Passive Authentication passed; the comparisons with the captures are the run's: no MRZ read, no face matcher.
    expect(done.result.chip).toMatchObject({ ds_signature: { status: 'succeeded' }, chain: { status: 'succeeded' }, data_group_hashes: { status: 'succeeded' } });
    expect(done.result.chip.cross_checks).toMatchObject({ mrz: { status: 'not_checked' }, portrait: { status: 'error' } });
    expect(await statusHistory(gate, s.id)).toEqual(['created', 'in_progress', 'processing', 'manual_review']);
    expect(await decisions(gate, s.id)).toEqual([['automated', 'processing', 'manual_review']]);
    // The chip's portrait is kept (encrypted) as evidence; it is not one of the page's captures.
    const rows = await gate.db.query(`SELECT class, details FROM artifacts WHERE session_id = $1 AND details->>'source' = 'chip' ORDER BY class`, [s.id]);
    expect(rows.rows.map((r: { class: string; details: { side?: string } }) => [r.class, r.details.side ?? null])).toEqual([
      ['id_document_image', 'chip_portrait'],
      ['mrz_text', null],
    ]);
  });

  it('chip first, then captures: the chip waits in_progress, the handoff completes the pair and the session is decided once', async () => {
    const key = gate.tenant.live_api_key;
    const s = await createSession(gate, key);
    const page = await startedPage(gate, s);
    const chip = await submitChip(gate, s, { 1: DG1, 2: DG2 });
    expect(chip.body.status).toBe('in_progress'); // waiting for the captures
    // The chip's portrait leaves the page's own limits alone: two document images still fit.
    expect((await upload(gate.server, page, { class: 'id_document_image', side: 'back' }, pngBytes(8, 8), 'image/png')).status).toBe(201);
    await captureOnPage(gate, page, junk.document, junk.selfie);
    const done = await decided(gate, s, key);
    expect(done).toMatchObject({ status: 'manual_review', result: { decision: 'review' } });
    expect(checks(done)).toEqual(ENGINES_OFF_CHECKS);
    expect(await statusHistory(gate, s.id)).toEqual(['created', 'in_progress', 'processing', 'manual_review']);
    expect(await decisions(gate, s.id)).toEqual([['automated', 'processing', 'manual_review']]);
  });

  it('both at once: exactly one of them queues the checks, and one decision follows', async () => {
    const key = gate.tenant.live_api_key;
    const s = await createSession(gate, key);
    const page = await startedPage(gate, s);
    expect((await upload(gate.server, page, { class: 'id_document_image' }, junk.document.bytes, 'image/png')).status).toBe(201);
    expect((await upload(gate.server, page, { class: 'selfie_image' }, junk.selfie.bytes, 'image/jpeg')).status).toBe(201);
    await answerChallenge(gate.server, page, (await pageCall(gate.server, page, 'POST', 'challenge')).body, 2);
    const [handoff, chip] = await Promise.all([pageCall(gate.server, page, 'POST', 'app-handoff'), submitChip(gate, s, { 1: DG1, 2: DG2 })]);
    expect([handoff.status, chip.status]).toEqual([200, 200]);
    const done = await decided(gate, s, key);
    expect(done.status).toBe('manual_review');
    expect(await statusHistory(gate, s.id)).toEqual(['created', 'in_progress', 'processing', 'manual_review']);
    expect(await decisions(gate, s.id)).toEqual([['automated', 'processing', 'manual_review']]);
  });

  it('without DG2 nothing can be compared with the selfie: the chip check cannot tell, and a person decides', async () => {
    const key = gate.tenant.live_api_key;
    const s = await createSession(gate, key);
    const page = await startedPage(gate, s);
    await captureOnPage(gate, page, junk.document, junk.selfie);
    expect((await submitChip(gate, s, { 1: DG1 })).status).toBe(200);
    const done = await decided(gate, s, key);
    expect(done).toMatchObject({ status: 'manual_review', result: { decision: 'review' } });
    // Passive Authentication passed on what was sent; the missing portrait, not a failure, holds the chip check back.
    expect(done.result.chip.data_group_hashes).toEqual({ status: 'succeeded' });
    expect(chipCheck(done)).toMatchObject({ status: 'error', reason: expect.stringContaining("No portrait could be read from the chip's DG2") });
    expect(done.result.chip.cross_checks.portrait).toMatchObject({ status: 'error', reason: expect.stringContaining("No portrait could be read from the chip's DG2") });
  });
});

describe('a test-mode T5 session: the clock decides, with the chip read before processing (D22)', () => {
  /**
   * A new session and its chip, sent before the clock's processing step (about 5 s after creation): the clock is
   * held while the chip is sent, then let go (test/helpers/test-clock.ts), so the machine's load cannot make the chip
   * late (issue 47). That a chip after processing is refused with 409 is its own test.
   */
  async function chipBeforeProcessing(create: () => ReturnType<typeof createSession>, groups: Parameters<typeof submitChip>[2]) {
    for (;;) {
      const s = await create();
      const clock = await holdTestClock(gate.server, s.id, 'processing');
      if (!clock) continue;
      const chip = await submitChip(gate, s, groups);
      await clock.release();
      return { s, chip };
    }
  }

  it('a tampered DG1 fails Passive Authentication and declines the session, whatever the test outcome asked', async () => {
    const key = gate.tenant.test_api_key;
    // Sent right after create, before the clock's processing step (about 5 s); no page is needed.
    const { s, chip } = await chipBeforeProcessing(() => createSession(gate, key, { test_outcome: 'review' }), { 1: DG1_TAMPERED, 2: DG2 });
    expect(chip.status).toBe(200);
    expect(chip.body.status).toBe('in_progress'); // the clock decides, not the chip
    const done = await decided(gate, s, key);
    expect(done).toMatchObject({ status: 'failed', result: { decision: 'declined' } });
    expect(done.result.badges).not.toContain('chip');
    expect(chipCheck(done)).toMatchObject({ status: 'fail', reason: expect.stringContaining('data group hashes failed') });
    expect(done.result.chip.data_groups.map((g: { number: number; status: string }) => [g.number, g.status])).toEqual([
      [1, 'mismatch'],
      [2, 'match'],
    ]);
    // A DG1 that does not match its signed hash is not kept.
    const kept = await gate.db.query(`SELECT class FROM artifacts WHERE session_id = $1 AND details->>'source' = 'chip' ORDER BY class`, [s.id]);
    expect(kept.rows.map((r: { class: string }) => r.class)).toEqual(['id_document_image']);
    expect(await statusHistory(gate, s.id)).toEqual(['created', 'in_progress', 'processing', 'failed']);
  });

  it('a chip that passes gives the real chip block and badge; without a chip the fixed test result; after processing the chip is refused', async () => {
    const key = gate.tenant.test_api_key;
    const { s: withChip, chip } = await chipBeforeProcessing(() => createSession(gate, key), { 1: DG1, 2: DG2 });
    expect(chip.status).toBe(200);
    const without = await createSession(gate, key);
    // Its fixed result, not its clock, is looked at: the steps run now rather than over 10 s (the chip sent after them is still refused).
    await hurryTestClock(gate.server, without.id);
    const [chipped, fixed] = await Promise.all([decided(gate, withChip, key), decided(gate, without, key)]);

    expect(chipped).toMatchObject({ status: 'success', result: { decision: 'approved', achieved_tier: 'T5', badges: ['photo', 'liveness', 'chip'] } });
    expect(chipCheck(chipped)).toMatchObject({ status: 'pass', reason: REASON });
    expect(chipped.result.chip.test_mode).toBeUndefined();
    expect(chipped.result.chip).toMatchObject({ ds_signature: { status: 'succeeded' }, chain: { status: 'succeeded' }, data_group_hashes: { status: 'succeeded' } });

    expect(fixed).toMatchObject({ status: 'success', result: { decision: 'approved', achieved_tier: 'T5', badges: ['photo', 'liveness', 'chip'] } });
    expect(fixed.result.chip.test_mode).toBe(true);
    const late = await submitChip(gate, without, { 1: DG1, 2: DG2 });
    expect({ status: late.status, code: late.body.error.code }).toEqual({ status: 409, code: 'invalid_state' });
  });
});

/** The synthetic DG1 is the ICAO specimen (ERIKSSON, UTO, expired 2012): a document that reads and is valid differs from it. */
const OTHER_DOCUMENT: MrzFields = {
  format: 'TD3',
  documentType: 'P',
  issuingState: 'D',
  documentNumber: 'C01X00T47',
  surname: 'MUSTERMANN',
  givenNames: 'ERIKA',
  nationality: 'D',
  dateOfBirth: '1964-08-12',
  sex: 'F',
  expiryDate: '2031-10-31',
};

/** The rendered data page with the chip's own portrait printed in its photo box. */
async function documentWithPortrait(portrait: Buffer): Promise<{ bytes: Buffer; contentType: string }> {
  const rendered = await renderDocument(OTHER_DOCUMENT);
  const [page, face] = [await loadImage(rendered.bytes), await loadImage(portrait)];
  const canvas = createCanvas(page.width, page.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(page, 0, 0);
  // synthetic-document.ts: a 125 mm page at 10 px/mm on a table margin of 12 %; the photo box at 5 %/12 % of the page, 25 % x 50 %.
  const w = 1250;
  const h = 880;
  const margin = Math.round(w * 0.12);
  ctx.drawImage(face, margin + w * 0.05, margin + h * 0.12, w * 0.25, h * 0.5);
  return { bytes: await canvas.encode('png'), contentType: 'image/png' };
}

describe('a live T5 session through the page, decided by the embedded engines', () => {
  // Liveness switched off so the session's later checks run on junk frames.
  let live: Stage;
  beforeAll(async () => {
    live = await stage(testEnv({ CHECK_WORKERS: '1', CHECK_LIVENESS_ENGINE: 'off' }), 'chip-decision-live');
  });
  afterAll(async () => {
    await unstage(live);
  });

  it('decides the captures and the chip in one run: the capture checks and the chip check, failed on DG1 differing from the image MRZ, the portrait matched with the selfie', async () => {
    const portrait = await jpeg2000ToPng(portraitFromDg2(DG2)!.bytes);
    const s = await createSession(live, live.tenant.live_api_key);
    const page = await startedPage(live, s);
    expect((await submitChip(live, s, { 1: DG1, 2: DG2 })).body.status).toBe('in_progress');
    await captureOnPage(live, page, await documentWithPortrait(portrait), { bytes: portrait, contentType: 'image/png' });
    // The first live check loads the offline models.
    const done = await decided(live, s, live.tenant.live_api_key, 200_000);
    const byName = Object.fromEntries(done.result.checks.map((c: { name: string }) => [c.name, c]));
    expect(Object.keys(byName)).toEqual(['document_ocr', 'face_match', 'liveness', 'anti_spoof', 'chip_passive_authentication']);
    expect(byName.document_ocr.status).toBe('pass');
    expect(byName.face_match.status).toBe('pass');
    expect(byName.liveness).toMatchObject({ status: 'error', reason: expect.stringContaining('CHECK_LIVENESS_ENGINE=off') });
    expect(byName.anti_spoof.status).not.toBe('skipped');
    expect(byName.chip_passive_authentication).toMatchObject({
      status: 'fail',
      reason: "The chip's DG1 differs from the document image's MRZ (document number, date of birth, expiry date, surname, given names, nationality)",
    });
    expect(done).toMatchObject({ status: 'failed', result: { decision: 'declined' } });
    // Passive Authentication itself succeeded; the portrait decoded from JPEG 2000 matched the selfie through the embedded face matcher.
    expect(done.result.chip.ds_signature).toEqual({ status: 'succeeded' });
    expect(done.result.chip.cross_checks.mrz.status).toBe('mismatch');
    expect(done.result.chip.cross_checks.portrait).toMatchObject({ status: 'match', score: expect.any(Number) });
    expect(await statusHistory(live, s.id)).toEqual(['created', 'in_progress', 'processing', 'failed']);
    expect(JSON.stringify(done)).not.toMatch(/ERIKSSON|MUSTERMANN|740812/);
  });
});
