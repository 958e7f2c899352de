// page.evaluate callbacks run in Chromium: they use the DOM types.
/// <reference lib="dom" />
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Frame, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { writeFakeCameraClip } from '../helpers/fake-camera';
import { dbClient } from '../helpers/hosted-client';
import { EVIDENCE_LINK, SignedLinks } from '../../src/links/signed-links';
import { qrSvg } from '../../src/hosted-flow/handoff-qr';
import { holdTestClock } from '../helpers/test-clock';
import { cli, createTenant, eventually, http as call, ROOT, startServer, Tenant, testEnv, TestServer, ENGINES_OFF } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * The hosted flow in headless Chromium (test/helpers/browser.ts: Debian's or the packaged one) with a fake camera
 * fed from a clip this test draws: a T2 session completed in redirect, popup and iframe mode, axe at
 * 360 px and desktop on every step, and a screenshot of every step for docs/screenshots.
 */
const SHOTS = path.join(ROOT, 'docs', 'screenshots');
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

/** Serves examples/ on another origin, over https as a live tenant's site is (a live redirect_url must be https). */
const TLS = { key: fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tls', 'localhost.key')), cert: fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tls', 'localhost.crt')) };
async function tenantSite(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = https.createServer(TLS, (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/no-camera.html') {
      // A tenant page that frames the flow without allow="camera": the frame gets no camera.
      const src = String(u.searchParams.get('hosted_url')).replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title><style>body{margin:0}iframe{width:100%;height:100vh;border:0}</style></head><body><main><iframe src="${src}" title="Identity verification"></iframe></main></body></html>`);
    }
    const file = path.join(ROOT, 'examples', path.basename(u.pathname === '/done' ? 'hosted-redirect.html' : u.pathname));
    if (!fs.existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fs.readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `https://localhost:${(server.address() as { port: number }).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('the hosted flow in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let acme: Tenant;
  let site: { origin: string; close: () => Promise<void> };
  let stranger: { origin: string; close: () => Promise<void> };
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const clip = writeFakeCameraClip();
    [server, browser, site, stranger, receiver] = await Promise.all([
      // The engines are switched off on purpose: the camera here is Chromium's fake device, and this file is
      // about the page; a live session goes to manual review with every check's reason saying so.
      startServer(testEnv({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...ENGINES_OFF })),
      launchChromium({ args: ['--ignore-certificate-errors', '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${clip}`] }),
      tenantSite(),
      tenantSite(),
      WebhookReceiver.start(),
    ]);
    acme = await createTenant(server, 'Acme Bank');
    const flow = await cli(server.env, ['flow', 'update', '--tenant', acme.tenant_id, '--allowed-origins', site.origin, '--primary-color', '#0b3d91', '--json']);
    expect(flow.code).toBe(0);
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    if (process.env.HOSTED_DEBUG) console.log((await server.settledLogs()).split('\n').filter((l) => /"level":(40|50)/.test(l)).join('\n'));
    await browser?.close();
    await Promise.all([server?.stop(), site?.close(), stranger?.close(), receiver?.close()]);
  });

  const local = (url: string) => url.replace(/^http:\/\/localhost:\d+/, server.url);

  async function session(key: string, extra: Record<string, unknown> = {}) {
    const r = await call(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T2', redirect_url: `${site.origin}/done`, ...extra } });
    expect(r.status).toBe(201);
    return { ...r.body, hosted_url: local(r.body.hosted_url) } as { id: string; hosted_url: string; client_secret: string };
  }

  /** No serious or critical axe violation, at 360 px and at desktop width. */
  async function axe(page: Page, step: string): Promise<void> {
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      const r = await new AxeBuilder({ page }).analyze();
      const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${step}@${size.width}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(bad).toEqual([]);
    }
  }

  /**
   * The check run at every step in redirect mode: a screenshot at 360 px, then axe at both widths.
   * The processing page would only last until the page's next poll, so its polls of the session's
   * view are held (the requests wait, unanswered) from the selfie until axe has looked at it.
   */
  function photographAndCheck(page: Page, prefix = 'hosted-'): (step: string) => Promise<void> {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const view = /\/v1\/hosted\/sessions\/vses_[A-Za-z0-9]+$/;
    return async (name: string) => {
      if (name === '6-selfie')
        await page.route(view, async (route) => {
          if (route.request().method() === 'GET') await held;
          await route.continue();
        });
      await page.setViewportSize(PHONE);
      await page.screenshot({ path: path.join(SHOTS, `${prefix}${name}.png`) });
      await axe(page, name);
      if (name === '9-processing') release();
    };
  }

  /** Walks every step as a person would. `check` runs at each step (axe and a screenshot in redirect mode). */
  async function completeFlow(f: Page | Frame, check: (step: string) => Promise<void> = async () => {}, tier: 'T1' | 'T2' | 'T4' | 'T5' = 'T2'): Promise<void> {
    // Keyboard only: every control is reached by focus and worked with Enter or Space.
    const press = (name: string) => f.getByRole('button', { name }).press('Enter');
    await f.getByRole('heading', { name: 'Agree to share your photos and identity document' }).waitFor();
    await check('1-consent');
    await press('Agree and continue');
    await f.getByRole('heading', { name: 'Which document will you use?' }).waitFor();
    await check('2-choose-document');
    await press('Continue');
    await f.getByRole('alert').waitFor();
    await check('3-choose-document-error');
    await f.getByLabel('Passport').press('Space');
    await press('Continue');
    await f.getByRole('heading', { name: 'Take a photo of your passport photo page' }).waitFor();
    await f.waitForFunction(() => (document.querySelector('video') as HTMLVideoElement | null)?.readyState === 4);
    await check('4-document-camera');
    await press('Take photo');
    await f.getByRole('button', { name: 'Use this photo' }).waitFor();
    await check('5-document-preview');
    await press('Use this photo');
    await f.getByRole('heading', { name: 'Take a selfie' }).waitFor();
    await f.waitForFunction(() => (document.querySelector('video') as HTMLVideoElement | null)?.readyState === 4);
    await check('6-selfie');
    await press('Take photo');
    if (tier !== 'T1') {
      await f.getByRole('heading', { name: 'Follow the instructions on the screen' }).waitFor();
      await f.waitForFunction(() => (document.querySelector('video') as HTMLVideoElement | null)?.readyState === 4);
      await check('7-liveness');
      await press('Start');
      await f.waitForFunction(() => /Turn|Look|Smile/.test(document.getElementById('instruction')?.textContent ?? ''));
      await check('8-liveness-step');
    }
    if (tier === 'T4' || tier === 'T5') return; // their own steps follow (the tests below)
    await f.getByRole('heading', { name: 'We are checking your documents' }).waitFor({ timeout: 60_000 });
    await check('9-processing');
    await f.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 60_000 });
    await check('10-done');
  }

  it('redirect mode: a live T2 session completes, lands on redirect_url, and its evidence is the bytes captured', async () => {
    const s = await session(acme.live_api_key);
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The sha256 the service computed of each body as it arrived (the DevTools protocol does not
    // expose Blob request bodies, so the page's own bytes cannot be hashed here).
    const sent: string[] = [];
    page.on('response', async (r) => {
      if (r.request().method() === 'POST' && r.url().includes('/artifacts') && r.status() === 201) sent.push(((await r.json()) as { sha256: string }).sha256);
    });
    await page.goto(s.hosted_url);
    await completeFlow(page, photographAndCheck(page));
    await page.getByText('A person will review your verification').waitFor();
    await page.getByRole('link', { name: 'Return to Acme Bank' }).press('Enter');
    await page.waitForURL((u) => u.origin === site.origin && u.pathname === '/done', { timeout: 60_000 });
    const landed = new URL(page.url());
    expect(landed.searchParams.get('session_id')).toBe(s.id);
    expect(landed.searchParams.get('status')).toBe('manual_review');

    const read = await call(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.live_api_key });
    expect(read.body.status).toBe('manual_review');
    const got = await Promise.all(read.body.result.evidence_urls.map(async (u: string) => sha256(Buffer.from(await (await fetch(local(u))).arrayBuffer()))));
    expect(got.sort()).toEqual([...sent].sort());
    // Document, selfie, and frames of each of the two steps: the page films until it has 5 of a step or the
    // step's window closes, so how many it grabs depends on how fast this machine's browser encodes them.
    expect(sent.length).toBeGreaterThanOrEqual(2 + 2);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('iframe mode: the parent on an allowed origin receives completed; a page on another origin cannot frame it', async () => {
    const s = await session(acme.live_api_key);
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${site.origin}/hosted-iframe.html?hosted_url=${encodeURIComponent(s.hosted_url)}`);
    const frame = await (await page.waitForSelector('iframe#verify')).contentFrame();
    await completeFlow(frame!, async (name) => {
      if (name === '1-consent') await page.screenshot({ path: path.join(SHOTS, 'hosted-iframe.png') });
    });
    await page.waitForFunction(() => (window as any).received.some((m: any) => m.type === 'completed'), undefined, { timeout: 60_000 });
    const received = await page.evaluate(() => (window as any).received);
    expect(received[0]).toMatchObject({ source: 'identity-verification', version: 1, type: 'ready', session_id: s.id });
    expect(received.at(-1)).toMatchObject({ type: 'completed', session_id: s.id, status: 'manual_review' });

    const other = await session(acme.live_api_key);
    const outsider = await context.newPage();
    const blocked: string[] = [];
    outsider.on('console', (m) => blocked.push(m.text()));
    await outsider.goto(`${stranger.origin}/hosted-iframe.html?hosted_url=${encodeURIComponent(other.hosted_url)}`);
    await outsider.waitForTimeout(3000);
    const framed = outsider.frames().find((f) => f !== outsider.mainFrame());
    expect(await framed?.$('#hosted-config').catch(() => null)).toBeFalsy();
    expect(blocked.some((t) => t.includes('frame-ancestors'))).toBe(true);
    expect(await outsider.evaluate(() => (window as any).received)).toEqual([]);
    await context.close();
  });

  /**
   * Opens a fresh test session's page with `open` and presses `label`. The choice must come before the session's
   * clock decides it (10 s), so the clock is held until the choice is answered, then let go
   * (test/helpers/test-clock.ts): no verdict hangs on the machine's speed.
   */
  async function choiceOnTestPage(open: (s: { id: string; hosted_url: string }) => Promise<{ page: Page; close: () => Promise<void> }>, label: string, extra: Record<string, unknown> = {}) {
    for (;;) {
      const s = await session(acme.test_api_key, extra);
      const clock = await holdTestClock(server, s.id, 'terminal');
      if (!clock) continue;
      const opened = await open(s);
      await opened.page.getByRole('heading', { name: 'This is a test verification' }).waitFor();
      const answer = opened.page.waitForResponse((r) => r.url().endsWith('/test-outcome'));
      await opened.page.getByRole('button', { name: label }).press('Enter');
      expect((await answer).status()).toBe(200);
      await clock.release();
      return { s, ...opened };
    }
  }

  it('popup mode: a test session\'s page needs no camera; Declined chosen there resolves it as declined, the opener receives completed, and the webhook fires', async () => {
    const t = await call(server, 'POST', '/v1/verify/webhooks', { key: acme.test_api_key, json: { url: receiver.url('/hooks'), events: ['verification.completed', 'verification.failed'] } });
    expect(t.status).toBe(201);
    let opener: Page | undefined;
    const { s, page: popup, close } = await choiceOnTestPage(async (created) => {
      const context = await browser.newContext({ viewport: DESKTOP });
      opener = await context.newPage();
      await opener.goto(`${site.origin}/hosted-popup.html?hosted_url=${encodeURIComponent(created.hosted_url)}`);
      const [page] = await Promise.all([context.waitForEvent('page'), opener.click('#open')]);
      await page.waitForLoadState();
      return { page, close: () => context.close() };
    }, 'Declined');
    await opener!.waitForFunction(() => (window as any).received.some((m: any) => m.type === 'completed'), undefined, { timeout: 60_000 });
    expect((await opener!.evaluate(() => (window as any).received)).at(-1)).toMatchObject({ type: 'completed', session_id: s.id, status: 'failed' });
    await popup.getByText('We could not verify your identity.').waitFor();
    const hook = await eventually(async () => receiver.at('/hooks').find((r) => JSON.parse(r.body).data.session_id === s.id), 60_000);
    expect(JSON.parse(hook.body)).toMatchObject({ type: 'verification.failed', data: { session_id: s.id, status: 'failed', decision: 'declined' } });
    const read = await call(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.test_api_key });
    expect(read.body.metadata.test_outcome).toBe('declined');
    expect(read.body.result.checks.find((c: { name: string }) => c.name === 'face_match')).toMatchObject({ status: 'fail', score: 0.12 });
    await close();
  });

  it('a test session\'s page (D22): says it is a test, axe-clean at 360 px and desktop, and each of Approved, Declined and Needs review chosen there is the session\'s outcome and webhook', async () => {
    const t = await call(server, 'POST', '/v1/verify/webhooks', { key: acme.test_api_key, json: { url: receiver.url('/test-page'), events: ['verification.completed', 'verification.failed', 'verification.manual_review'] } });
    expect(t.status).toBe(201);
    const inPhone = async (created: { hosted_url: string }) => {
      const context = await browser.newContext({ viewport: PHONE });
      const page = await context.newPage();
      await page.goto(created.hosted_url);
      return { page, close: () => context.close() };
    };
    // The page as it opens (a T2 session: no consent, no camera), its screenshot and axe.
    const shown = await inPhone(await session(acme.test_api_key, { metadata: { test_outcome: 'review' } }));
    await shown.page.getByRole('heading', { name: 'This is a test verification' }).waitFor();
    expect(await shown.page.locator('#test-outcome').getAttribute('data-outcome')).toBe('review');
    expect(await shown.page.locator('video').count()).toBe(0);
    await shown.page.screenshot({ path: path.join(SHOTS, 'hosted-test-mode.png') });
    await axe(shown.page, 'test-mode');
    await shown.close();

    for (const [label, outcome, status, event, text] of [
      ['Approved', 'approved', 'success', 'verification.completed', 'Your identity has been verified.'],
      ['Declined', 'declined', 'failed', 'verification.failed', 'We could not verify your identity.'],
      ['Needs review', 'review', 'manual_review', 'verification.manual_review', 'A person will review your verification.'],
    ]) {
      // The session asks for another outcome at creation: the page's choice is what counts.
      const { s, page, close } = await choiceOnTestPage(inPhone, label, { metadata: { test_outcome: outcome === 'approved' ? 'declined' : 'approved' } });
      await page.locator(`#result[data-status="${status}"]`).waitFor({ timeout: 60_000 });
      expect(await page.locator('#result').textContent()).toContain(text);
      await axe(page, `test-mode-${outcome}-result`);
      const read = await call(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.test_api_key });
      expect(read.body).toMatchObject({ status, metadata: { test_outcome: outcome } });
      const hook = await eventually(async () => receiver.at('/test-page').find((r) => JSON.parse(r.body).data.session_id === s.id), 60_000);
      expect(JSON.parse(hook.body)).toMatchObject({ type: event, data: { session_id: s.id, status } });
      await close();
    }
  });

  it('a live T1 session on a phone completes in redirect mode; without engines every check is an error and it goes to manual_review; its evidence URLs return the bytes captured, and stop after 15 minutes and after a purge', async () => {
    const s = await session(acme.live_api_key, { tier: 'T1' });
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const sent: string[] = [];
    page.on('response', async (r) => {
      if (r.request().method() === 'POST' && r.url().includes('/artifacts') && r.status() === 201) sent.push(((await r.json()) as { sha256: string }).sha256);
    });
    await page.goto(s.hosted_url);
    await completeFlow(page, async () => {}, 'T1');
    await page.getByText('A person will review your verification').waitFor();
    await page.getByRole('link', { name: 'Return to Acme Bank' }).press('Enter');
    await page.waitForURL((u) => u.origin === site.origin && u.searchParams.get('session_id') === s.id && u.searchParams.get('status') === 'manual_review');
    await context.close();

    const read = await call(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.live_api_key });
    expect(read.body.status).toBe('manual_review');
    expect(read.body.result.checks.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual([
      ['document_ocr', 'error'],
      ['face_match', 'error'],
    ]);
    const urls: string[] = read.body.result.evidence_urls.map(local);
    expect(sent).toHaveLength(2);
    const got = await Promise.all(urls.map(async (u) => sha256(Buffer.from(await (await fetch(u)).arrayBuffer()))));
    expect(got.sort()).toEqual([...sent].sort());

    // 15 minutes: links minted by the service's own signer and key, on a clock set back 14 and 15 minutes.
    const db = await dbClient(server);
    try {
      const key = (await db.query(`SELECT value FROM instance_settings WHERE key = 'evidence_url_key'`)).rows[0].value as string;
      const minted = (minutesAgo: number) => SignedLinks.withKey(EVIDENCE_LINK, server.url, Buffer.from(key, 'utf8'), () => new Date(Date.now() - minutesAgo * 60_000)).url(new URL(urls[0]).pathname.split('/').pop()!);
      expect((await fetch(minted(14))).status).toBe(200);
      const expired = await fetch(minted(15));
      expect(expired.status).toBe(403);
      expect(((await expired.json()) as any).error.code).toBe('link_invalid');

      // A purge (retention reached, then the CLI's purge): the same links are 410.
      await db.query(`UPDATE artifacts SET retain_until = now() - interval '1 second' WHERE session_id = $1`, [s.id]);
    } finally {
      await db.end();
    }
    expect((await cli(server.env, ['vault', 'purge-expired', '--json'])).code).toBe(0);
    for (const u of urls) {
      const gone = await fetch(u);
      expect(gone.status).toBe(410);
      expect(((await gone.json()) as any).error.code).toBe('gone');
    }
  });

  it('without a camera (framed without allow="camera") the page says so and offers the same session on another device, by link and QR code', async () => {
    const s = await session(acme.live_api_key);
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(`${site.origin}/no-camera.html?hosted_url=${encodeURIComponent(s.hosted_url)}`);
    const frame = (await (await page.waitForSelector('iframe')).contentFrame())!;
    await frame.getByRole('button', { name: 'Agree and continue' }).press('Enter');
    await frame.getByLabel('Passport').press('Space');
    await frame.getByRole('button', { name: 'Continue' }).press('Enter');
    const handoff = frame.locator('[data-no-camera]');
    await handoff.waitFor();
    await expect(handoff.textContent()).resolves.toContain('did not give this page access to a camera');
    await expect(handoff.textContent()).resolves.toContain('allow'); // the iframe case is explained
    await frame.getByRole('img', { name: 'QR code that opens this verification on another device' }).waitFor();
    expect(await frame.getByLabel('Or upload a photo of the document').count()).toBe(1); // documents may still be uploaded
    await page.screenshot({ path: path.join(SHOTS, 'hosted-no-camera.png') });
    await axe(page, 'no-camera');
    const link = local((await handoff.getByRole('link').getAttribute('href'))!);
    expect(link).toBe(s.hosted_url);

    // The other device: the same session, from its first step.
    const phone = await browser.newContext({ viewport: PHONE });
    const other = await phone.newPage();
    await other.goto(link);
    await other.getByRole('heading', { name: 'Agree to share your photos and identity document' }).waitFor();
    expect(await other.evaluate(() => JSON.parse(document.getElementById('hosted-config')!.textContent!).session_id)).toBe(s.id);
    await Promise.all([context.close(), phone.close()]);
  });

  it('speaks German when the session asks for de-DE', async () => {
    const s = await session(acme.live_api_key, { locale: 'de-DE' });
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(s.hosted_url);
    await page.getByRole('heading', { name: 'Stimmen Sie der Weitergabe Ihrer Fotos und Ihres Ausweises zu' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('de-DE');
    await page.screenshot({ path: path.join(SHOTS, 'hosted-de-1-consent.png') });
    await axe(page, 'de-consent');
    await page.getByRole('button', { name: 'Zustimmen und weiter' }).press('Enter');
    await page.getByRole('heading', { name: 'Welches Dokument verwenden Sie?' }).waitFor();
    await axe(page, 'de-choose-document');
    await context.close();
  });

  /** A page's requests to any origin but the service's, to show the T5 secret goes nowhere else. */
  function foreignRequests(page: Page): string[] {
    const seen: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url)) seen.push(r.url());
    });
    return seen;
  }

  it('T4 (and its T3 identity step): the page asks for the name and date of birth as printed, then refuses a mistyped LEI with an error linked to its field, and takes the corrected one', async () => {
    const s = await session(acme.live_api_key, { tier: 'T4' });
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(s.hosted_url);
    await completeFlow(page, async () => {}, 'T4');
    const press = (name: string) => page.getByRole('button', { name }).press('Enter');

    await page.getByRole('heading', { name: 'Enter your name and date of birth as printed on your document' }).waitFor({ timeout: 60_000 });
    await expect(page.getByText('machine-readable lines').count()).resolves.toBe(1);
    await press('Continue');
    await page.getByRole('alert').waitFor();
    await expect(page.getByRole('alert').getByRole('link', { name: 'Enter your surname as printed on your document' }).getAttribute('href')).resolves.toBe('#surname');
    await page.screenshot({ path: path.join(SHOTS, 'hosted-t3-identity-error.png') });
    await axe(page, 't3-identity-error');
    await page.getByLabel('Given names').fill('Anna Maria');
    await page.getByLabel('Surname').fill('Muster-Frau');
    await page.getByLabel('Date of birth').fill('1985-03-27');
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: path.join(SHOTS, 'hosted-t3-identity.png') });
    await press('Continue');

    await page.getByRole('heading', { name: 'Tell us about your business' }).waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'hosted-t4-business.png') });
    await axe(page, 't4-business');
    await page.getByLabel('Legal name of the business').fill('Acme Widgets Ltd');
    await page.getByLabel('Legal Entity Identifier (LEI)').fill('5493001KJTIIGC8Y1R13'); // last digit mistyped
    await press('Continue');
    const summary = page.getByRole('alert');
    await summary.getByRole('link', { name: /check digits do not match/ }).waitFor();
    await expect(summary.getByRole('link').getAttribute('href')).resolves.toBe('#lei');
    await expect(page.getByLabel('Legal Entity Identifier (LEI)').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: path.join(SHOTS, 'hosted-t4-business-error.png') });
    await axe(page, 't4-business-error');
    await summary.getByRole('link').press('Enter'); // the summary takes the user to the field
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('lei');
    await page.getByLabel('Legal Entity Identifier (LEI)').fill('5493001KJTIIGC8Y1R12');
    await press('Continue');
    await page.getByRole('heading', { name: /We are checking your documents|Thank you/ }).waitFor({ timeout: 60_000 });
    await context.close();

    const db = await dbClient(server);
    try {
      const row = (await db.query(`SELECT business, identity_sealed FROM hosted_captures WHERE session_id = $1`, [s.id])).rows[0];
      expect(row.business).toEqual({ legal_name: 'Acme Widgets Ltd', lei: '5493001KJTIIGC8Y1R12' });
      expect(row.identity_sealed).not.toContain('Muster'); // sealed under the tenant's vault key
      // Not an artifact: no artifact row (captures, or what the check job derives after submit) holds the LEI.
      expect((await db.query(`SELECT count(*)::int AS n FROM artifacts WHERE session_id = $1 AND coalesce(details::text, '') LIKE '%5493001KJTIIGC8Y1R12%'`, [s.id])).rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
    const read = await call(server, 'GET', `/v1/verify/sessions/${s.id}`, { key: acme.live_api_key });
    expect(['processing', 'manual_review']).toContain(read.body.status);
  });

  it('T5: after the web steps the page hands over to the mobile app with a deep link and a QR code of it carrying a working client_secret, sent to no other origin', async () => {
    const s = await session(acme.live_api_key, { tier: 'T5' });
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const foreign = foreignRequests(page);
    const handoff = page.waitForResponse((r) => r.url().endsWith('/app-handoff') && r.status() === 200);
    await page.goto(s.hosted_url);
    await completeFlow(page, async () => {}, 'T5');
    await page.getByRole('heading', { name: 'Read your passport chip in the app' }).waitFor({ timeout: 60_000 });
    const { link, qr_svg } = (await (await handoff).json()) as { link: string; qr_svg: string };
    const href = (await page.getByRole('link', { name: 'Open the app' }).getAttribute('href'))!;
    expect(href).toBe(link);
    const u = new URL(link);
    expect(`${u.protocol}//${u.host}${u.pathname}`).toBe('idverify://chip');
    expect(u.searchParams.get('session_id')).toBe(s.id);
    const secret = u.searchParams.get('client_secret')!;
    expect(secret).toMatch(new RegExp(`^${s.id}_secret_`));
    // The QR code on the page is the service's encoding of exactly this link.
    expect(qr_svg).toBe(await qrSvg(link));
    await page.getByRole('img', { name: 'QR code that opens the app to read your passport chip' }).waitFor();
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: path.join(SHOTS, 'hosted-t5-handoff.png') });
    await axe(page, 't5-handoff');

    // The app's secret reads this session (as the one returned on create still does), and no other.
    const asApp = await fetch(`${server.url}/v1/verify/sessions/${s.id}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(asApp.status).toBe(200);
    expect(((await asApp.json()) as { status: string }).status).toBe('in_progress'); // waiting for the chip
    expect((await fetch(`${server.url}/v1/verify/sessions/${s.id}`, { headers: { authorization: `Bearer ${s.client_secret}` } })).status).toBe(200);
    expect(foreign.filter((r) => r.includes(secret))).toEqual([]);
    // The web steps count as submitted: a reload while the chip is awaited shows the handoff again, not the end.
    const again = page.waitForResponse((r) => r.url().endsWith('/app-handoff') && r.status() === 200);
    await page.reload();
    await page.getByRole('heading', { name: 'Read your passport chip in the app' }).waitFor({ timeout: 60_000 });
    expect(((await (await again).json()) as { link: string }).link).not.toBe(link); // a fresh app secret
    await context.close();
  });
});
