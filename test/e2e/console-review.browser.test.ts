import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { addConsoleCookie, createConsoleMember, type ConsoleLogin } from '../helpers/console-login';
import { openPage, pageCall, pngBytes, upload } from '../helpers/hosted-client';
import { startOidcServer } from '../helpers/oidc-login';
import { createTenant, eventually, http, ROOT, type Tenant, type TestServer, ENGINES_OFF } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * The console's review pages in Chromium (issue 27, docs/console.md), driven by labels and roles: a
 * reviewer decides a queued case from the queue in three actions (open the case; choose the decision
 * and give the reason; confirm) and the webhook arrives; every page (queue, case with evidence,
 * settings, a viewer's case, German) has 0 serious or critical axe violations at 360 px and 1440 px;
 * screenshots go to docs/screenshots/console-*.png.
 */
const SHOTS = path.join(ROOT, 'docs', 'screenshots');
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1440, height: 900 };

describe('the console review pages in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let acme: Tenant;
  let reviewer: ConsoleLogin;
  let viewer: ConsoleLogin;
  let admin: ConsoleLogin;
  let queuedId = '';
  let liveId = '';

  const statusOf = (id: string, key: string, status: string) =>
    eventually(async () => ((await http(server, 'GET', `/v1/verify/sessions/${id}`, { key })).body.status === status ? true : undefined), 60_000);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    [server, browser] = await Promise.all([
      startOidcServer({ RATE_LIMIT_ENABLED: 'false', WEBHOOK_RETRY_SCALE: '0.001', ...ENGINES_OFF }),
      launchChromium(),
    ]);
    acme = await createTenant(server, 'Acme Shop');
    expect((await http(server, 'POST', '/v1/verify/webhooks', { key: acme.test_api_key, json: { url: receiver.url('/acme'), events: ['verification.completed', 'verification.failed', 'verification.manual_review'] } })).status).toBe(201);
    queuedId = (await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T3', reference_id: 'customer-4711', metadata: { test_outcome: 'review' } } })).body.id;
    const live = (await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T2' } })).body;
    liveId = live.id;
    const page = await openPage(server, live);
    await pageCall(server, page, 'POST', 'start');
    await upload(server, page, { class: 'id_document_image' }, pngBytes(48, 30, [40, 90, 160]), 'image/png');
    await upload(server, page, { class: 'selfie_image' }, pngBytes(30, 40, [200, 160, 120]), 'image/png');
    // Frames as small PNGs (so the strip shows pictures), stamped inside each step's window as the page does.
    const challenge = (await pageCall(server, page, 'POST', 'challenge')).body as { steps: { nonce: string; opens_at: number; closes_at: number }[] };
    for (const [i, step] of challenge.steps.entries()) {
      const wait = step.opens_at + 50 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      for (let f = 0; f < 2; f++) {
        const r = await upload(server, page, { class: 'selfie_video', step: i, nonce: step.nonce, captured_at: Math.min(Date.now(), step.closes_at - 1) }, pngBytes(30, 40, [180 - i * 40, 140 + f * 30, 110]), 'image/png');
        expect(r.status).toBe(201);
      }
    }
    await pageCall(server, page, 'POST', 'submit');
    [reviewer, viewer, admin] = await Promise.all([
      createConsoleMember(server, acme.tenant_id, 'reviewer'),
      createConsoleMember(server, acme.tenant_id, 'viewer'),
      createConsoleMember(server, acme.tenant_id, 'admin'),
    ]);
    await Promise.all([statusOf(queuedId, acme.test_api_key, 'manual_review'), statusOf(liveId, acme.live_api_key, 'manual_review')]);
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  async function contextFor(login: ConsoleLogin, locale = 'en-US'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: DESKTOP, locale });
    await addConsoleCookie(context, server, login);
    return { context, page: await context.newPage() };
  }

  /** axe at 1440 px and at 360 px (0 serious or critical); a screenshot at `shot` (phone width when `phoneShot`). */
  async function check(page: Page, step: string, shot?: string, phoneShot = false): Promise<void> {
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      const r = await new AxeBuilder({ page }).analyze();
      const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${step} @${size.width}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(bad).toEqual([]);
      if (shot && (size === PHONE) === phoneShot) await page.screenshot({ path: path.join(SHOTS, shot), fullPage: true });
    }
    await page.setViewportSize(DESKTOP);
  }

  test('a reviewer decides a queued case from the queue in three actions, and the webhook arrives', async () => {
    const { context, page } = await contextFor(reviewer);
    await page.goto(`${server.url}/console/queue`);
    await page.getByRole('heading', { name: 'Review queue', level: 1 }).waitFor();
    await check(page, 'queue', 'console-queue.png');

    // 1. Open the case.
    await page.getByRole('link', { name: `Open case ${queuedId}` }).click();
    await page.getByRole('heading', { name: `Case ${queuedId}`, level: 1 }).waitFor();
    await check(page, 'case', 'console-case.png');
    // 2. Choose the decision and give the reason.
    await page.getByLabel('Approve').check();
    await page.getByLabel('Reason').fill('Passport compared by hand');
    // 3. Confirm.
    await page.getByRole('button', { name: 'Record decision' }).click();
    await page.getByText('Decision recorded: Approve.').waitFor();
    await check(page, 'decided', 'console-decided.png', true);

    const event = await eventually(async () => receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.type === 'verification.completed' && e.data.session_id === queuedId));
    expect(event.data).toMatchObject({ status: 'success', decision: 'approved' });
    await context.close();
  });

  test("every other page passes axe: a case's evidence, settings, a viewer's case, the German queue", async () => {
    const r = await contextFor(reviewer);
    await r.page.goto(`${server.url}/console/cases/${liveId}`);
    await r.page.getByRole('heading', { name: 'Liveness frames' }).waitFor();
    await r.page.getByRole('img', { name: 'Document image 1' }).waitFor();
    // The image decodes: the bytes came through the console's evidence route.
    await r.page.waitForFunction(() => [...document.querySelectorAll('img.evidence')].every((i) => (i as HTMLImageElement).complete));
    expect(await r.page.getByRole('img', { name: 'Document image 1' }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(48);
    await check(r.page, 'case with evidence', 'console-case-evidence.png');
    await r.context.close();

    const a = await contextFor(admin);
    await a.page.goto(`${server.url}/console/settings`);
    await a.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await check(a.page, 'settings', 'console-settings.png');
    await a.page.getByRole('region', { name: 'Review' }).getByRole('radio', { name: 'On' }).check();
    await a.page.getByRole('button', { name: 'Save' }).first().click();
    await a.page.getByText('Saved.').waitFor();
    await a.context.close();

    const v = await contextFor(viewer);
    await v.page.goto(`${server.url}/console/cases/${liveId}`);
    await v.page.getByText('Your role (viewer) can read cases but not decide them.').waitFor();
    expect(await v.page.getByRole('button', { name: 'Record decision' }).count()).toBe(0);
    await check(v.page, 'viewer case', 'console-case-viewer.png', true);
    await v.context.close();

    const de = await contextFor(reviewer, 'de-DE');
    await de.page.goto(`${server.url}/console/queue`);
    await de.page.getByRole('heading', { name: 'Prüfwarteschlange', level: 1 }).waitFor();
    await check(de.page, 'queue de-DE', 'console-queue-de.png', true);
    await de.context.close();
  });
});
