import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { Client } from 'pg';
import { renderDocument } from '../../bench/checks/synthetic-document';
import type { MrzFields } from '../../src/checks/check-providers';
import { portraitFromDg2 } from '../../src/chip/dg2-portrait';
import { jpeg2000ToPng } from '../../src/chip/jpeg2000.decoder';
import { fixture, ICAO_FIXTURES } from '../fixtures/icao/icao.fixtures';
import { answerChallenge, dbClient, jpegBytes, openPage, PageSession, pageCall, pngBytes, upload } from '../helpers/hosted-client';
import { cli, createTenant, eventually, http, HttpResult, startServer, Tenant, testEnv, TestServer } from '../helpers/test-server';

/**
 * T5 as one decision (docs/chip.md, "The route and what follows"): the page's captures and the
 * chip, in either order, make one run of the checks and one decision, through the built server.
 * Test mode: the deterministic engines and the chip's real Passive Authentication. Live: the
 * embedded engines, with DG1 compared to the MRZ read from a rendered document and DG2 (JPEG 2000,
 * decoded by the service) matched with the selfie.
 */

const REASON = 'Document is genuine and unmodified per ICAO 9303 Passive Authentication.';
const DG1 = fixture('synthetic', 'EF_DG1.bin');
const DG2 = fixture('synthetic', 'EF_DG2.bin');
const DG1_TAMPERED = fixture('synthetic', 'negative_EF_DG1_tampered.bin');
const SOD = fixture('synthetic', 'ecdsa_p256_named_sha256', 'EF_SOD.bin');
const b64 = (bytes: Buffer) => bytes.toString('base64');
const chipBody = (groups: Record<number, Buffer>) => ({ sod: b64(SOD), data_groups: Object.fromEntries(Object.entries(groups).map(([n, g]) => [n, b64(g)])) });

let server: TestServer;
let acme: Tenant;
let db: Client;

type Created = { id: string; client_secret: string; hosted_url: string };

beforeAll(async () => {
  // One check worker, as a small deployment runs; liveness switched off so the live session's later checks run on junk frames.
  server = await startServer(testEnv({ CHECK_WORKERS: '1', CHECK_LIVENESS_ENGINE: 'off' }));
  const trusted = await cli(server.env, ['csca', 'import', '--trust-certificate', path.join(ICAO_FIXTURES, 'synthetic', 'ecdsa_p256_named_sha256', 'CSCA.der'), '--json']);
  if (trusted.code !== 0) throw new Error(`csca import failed: ${trusted.stderr}`);
  acme = await createTenant(server, 'chip-decision');
  db = await dbClient(server);
}, 120_000);
afterAll(async () => {
  await db?.end();
  await server?.stop();
});

async function createSession(key: string, metadata: Record<string, unknown> = {}): Promise<Created> {
  const r = await http(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T5', metadata } });
  expect(r.status).toBe(201);
  return r.body as Created;
}

const submitChip = (s: Created, groups: Record<number, Buffer>): Promise<HttpResult> =>
  http(server, 'POST', `/v1/verify/sessions/${s.id}/chip`, { key: s.client_secret, json: chipBody(groups) });

/** The page's web steps: document, selfie, every liveness step; the app handoff ends them (the T5 page never calls submit). */
async function captureOnPage(page: PageSession, document: { bytes: Buffer; contentType: string }, selfie: { bytes: Buffer; contentType: string }): Promise<HttpResult> {
  expect((await upload(server, page, { class: 'id_document_image' }, document.bytes, document.contentType)).status).toBe(201);
  expect((await upload(server, page, { class: 'selfie_image' }, selfie.bytes, selfie.contentType)).status).toBe(201);
  await answerChallenge(server, page, (await pageCall(server, page, 'POST', 'challenge')).body, 2);
  const handoff = await pageCall(server, page, 'POST', 'app-handoff');
  expect(handoff.status).toBe(200);
  return handoff;
}

async function startedPage(s: Created): Promise<PageSession> {
  const page = await openPage(server, s);
  expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
  return page;
}

const testCaptures = { document: { bytes: pngBytes(16, 10), contentType: 'image/png' }, selfie: { bytes: jpegBytes(3000, 5), contentType: 'image/jpeg' } };

async function decided(s: Created, key: string, timeoutMs = 30_000): Promise<any> {
  return eventually(async () => {
    const r = await http(server, 'GET', `/v1/verify/sessions/${s.id}`, { key });
    return ['success', 'failed', 'manual_review'].includes(r.body.status) ? r.body : undefined;
  }, timeoutMs);
}

/** Every status the session took, from its outbox: one decision means one `processing` and one final status. */
async function statusHistory(id: string): Promise<string[]> {
  const rows = await db.query(`SELECT payload->>'status' AS status FROM outbox_events WHERE session_id = $1 AND type = 'session.status_changed' ORDER BY seq`, [id]);
  return rows.rows.map((r: { status: string }) => r.status);
}

const checks = (body: any) => body.result.checks.map((c: { name: string; status: string }) => [c.name, c.status]);

describe('a test-mode T5 session through the page', () => {
  it('captures first, then the chip: waits in_progress for the chip, then one decision, approved with the chip badge', async () => {
    const s = await createSession(acme.test_api_key);
    const page = await startedPage(s);
    await captureOnPage(page, testCaptures.document, testCaptures.selfie);
    const waiting = await pageCall(server, page, 'GET', '');
    expect(waiting.body).toMatchObject({ status: 'in_progress', submitted: true, captured: { id_document_image: 1, selfie_image: 1 } });
    // What was submitted is what the checks read: no capture and no new challenge while the chip is awaited.
    const late = await upload(server, page, { class: 'id_document_image' }, pngBytes(8, 8), 'image/png');
    expect({ status: late.status, code: late.body.error.code }).toEqual({ status: 409, code: 'invalid_state' });
    expect((await pageCall(server, page, 'POST', 'challenge')).status).toBe(409);

    const chip = await submitChip(s, { 1: DG1, 2: DG2 });
    expect(chip.status).toBe(200);
    expect(chip.body.status).toBe('processing'); // the captures were there: the chip completes the pair
    const done = await decided(s, acme.test_api_key);
    expect(done.status).toBe('success');
    expect(done.result).toMatchObject({ decision: 'approved', achieved_tier: 'T5', badges: ['photo', 'liveness', 'chip'] });
    expect(checks(done)).toEqual([
      ['document_ocr', 'pass'],
      ['face_match', 'pass'],
      ['liveness', 'pass'],
      ['anti_spoof', 'pass'],
      ['chip_passive_authentication', 'pass'],
    ]);
    expect(done.result.checks.at(-1).reason).toBe(REASON);
    // The real chip block, with what it was compared with: the test-mode reader reads no MRZ; the portrait went through the (test) face matcher.
    expect(done.result.chip.test_mode).toBeUndefined();
    expect(done.result.chip.cross_checks).toMatchObject({ mrz: { status: 'not_checked' }, portrait: { status: 'match' } });
    expect(await statusHistory(s.id)).toEqual(['created', 'in_progress', 'processing', 'success']);
    // The chip's portrait is kept (encrypted) as evidence; it is not one of the page's captures.
    const rows = await db.query(`SELECT class, details FROM artifacts WHERE session_id = $1 AND details->>'source' = 'chip' ORDER BY class`, [s.id]);
    expect(rows.rows.map((r: { class: string; details: { side?: string } }) => [r.class, r.details.side ?? null])).toEqual([
      ['id_document_image', 'chip_portrait'],
      ['mrz_text', null],
    ]);
  }, 60_000);

  it('chip first, then captures: the handoff completes the pair and the session is decided once', async () => {
    const s = await createSession(acme.test_api_key);
    const page = await startedPage(s);
    const chip = await submitChip(s, { 1: DG1, 2: DG2 });
    expect(chip.body.status).toBe('in_progress'); // waiting for the captures
    // The chip's portrait leaves the page's own limits alone: two document images still fit.
    expect((await upload(server, page, { class: 'id_document_image', side: 'back' }, pngBytes(8, 8), 'image/png')).status).toBe(201);
    await captureOnPage(page, testCaptures.document, testCaptures.selfie);
    const done = await decided(s, acme.test_api_key);
    expect(done.result).toMatchObject({ decision: 'approved', achieved_tier: 'T5', badges: ['photo', 'liveness', 'chip'] });
    expect(await statusHistory(s.id)).toEqual(['created', 'in_progress', 'processing', 'success']);
  }, 60_000);

  it('both at once: exactly one of them queues the checks, and one decision follows', async () => {
    const s = await createSession(acme.test_api_key);
    const page = await startedPage(s);
    expect((await upload(server, page, { class: 'id_document_image' }, testCaptures.document.bytes, 'image/png')).status).toBe(201);
    expect((await upload(server, page, { class: 'selfie_image' }, testCaptures.selfie.bytes, 'image/jpeg')).status).toBe(201);
    await answerChallenge(server, page, (await pageCall(server, page, 'POST', 'challenge')).body, 2);
    const [handoff, chip] = await Promise.all([pageCall(server, page, 'POST', 'app-handoff'), submitChip(s, { 1: DG1, 2: DG2 })]);
    expect([handoff.status, chip.status]).toEqual([200, 200]);
    const done = await decided(s, acme.test_api_key);
    expect(done.status).toBe('success');
    expect(await statusHistory(s.id)).toEqual(['created', 'in_progress', 'processing', 'success']);
  }, 60_000);

  it('a tampered DG1 fails the chip check and declines the session, whatever the test outcome asked', async () => {
    const s = await createSession(acme.test_api_key);
    const page = await startedPage(s);
    await captureOnPage(page, testCaptures.document, testCaptures.selfie);
    expect((await submitChip(s, { 1: DG1_TAMPERED, 2: DG2 })).status).toBe(200);
    const done = await decided(s, acme.test_api_key);
    expect(done).toMatchObject({ status: 'failed', result: { decision: 'declined', achieved_tier: 'T2', badges: ['photo', 'liveness'] } });
    const chipCheck = done.result.checks.find((c: { name: string }) => c.name === 'chip_passive_authentication');
    expect(chipCheck.status).toBe('fail');
    expect(chipCheck.reason).toContain('data group hashes failed');
    // A DG1 that does not match its signed hash is not kept, and is compared with nothing.
    expect(done.result.chip.cross_checks.mrz.status).toBe('not_checked');
  }, 60_000);

  it('without DG2 nothing can be compared with the selfie: a person decides', async () => {
    const s = await createSession(acme.test_api_key);
    const page = await startedPage(s);
    await captureOnPage(page, testCaptures.document, testCaptures.selfie);
    expect((await submitChip(s, { 1: DG1 })).status).toBe(200);
    const done = await decided(s, acme.test_api_key);
    expect(done).toMatchObject({ status: 'manual_review', result: { decision: 'review' } });
    const chipCheck = done.result.checks.find((c: { name: string }) => c.name === 'chip_passive_authentication');
    expect(chipCheck).toMatchObject({ status: 'error', reason: expect.stringContaining("No portrait could be read from the chip's DG2") });
  }, 60_000);
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

describe('a live T5 session through the page', () => {
  it('decides the captures and the chip in one run: the capture checks and the chip check, failed on DG1 differing from the image MRZ, the portrait matched with the selfie', async () => {
    const portrait = await jpeg2000ToPng(portraitFromDg2(DG2)!.bytes);
    const s = await createSession(acme.live_api_key);
    const page = await startedPage(s);
    expect((await submitChip(s, { 1: DG1, 2: DG2 })).body.status).toBe('in_progress');
    await captureOnPage(page, await documentWithPortrait(portrait), { bytes: portrait, contentType: 'image/png' });
    // The first live check loads the offline models.
    const done = await decided(s, acme.live_api_key, 200_000);
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
    expect(await statusHistory(s.id)).toEqual(['created', 'in_progress', 'processing', 'failed']);
    expect(JSON.stringify(done)).not.toMatch(/ERIKSSON|MUSTERMANN|740812/);
  }, 240_000);
});
