// page.evaluate callbacks run in Chromium: they use the DOM types.
/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { createTenant, http, startServer, TestServer } from '../helpers/test-server';

/**
 * The copyable example page (examples/session-status.html) in a real headless Chromium, driven by
 * playwright-core (test/helpers/browser.ts picks Debian's or the packaged one).
 */
describe('examples/session-status.html in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServer(),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows a test-mode session going live from created to success with its client_secret alone', async () => {
    const t = await createTenant(server, 'browser');
    const r = await http(server, 'POST', '/v1/verify/sessions', { key: t.test_api_key, json: { flow_id: 'default', tier: 'T2' } });
    expect(r.status).toBe(201);
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('requestfailed', (req) => failures.push(req.url()));
    page.on('pageerror', (err) => failures.push(err.message));
    await page.goto(`${server.url}/examples/session-status.html#client_secret=${encodeURIComponent(r.body.client_secret)}`);
    await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'live', undefined, { timeout: 60_000 });
    await page.waitForFunction(() => document.getElementById('status')?.dataset.status === 'success', undefined, { timeout: 60_000 });
    await page.waitForFunction(() => document.getElementById('connection')?.textContent === 'finished', undefined, { timeout: 60_000 });
    const history = await page.$$eval('#history li', (lis) => lis.map((li) => li.textContent));
    // Every status in order; on a loaded machine the page may connect after `created` (or `in_progress`: the test clock's
    // steps are 3 s apart), then it starts at the current one. At least one change arrived live after it connected.
    const all = ['created', 'in_progress', 'processing', 'success'];
    expect(history.length).toBeGreaterThanOrEqual(2);
    expect(history).toEqual(all.slice(all.length - history.length));
    expect(await page.textContent('#decision')).toBe('Decision: approved (T2)');
    expect(failures).toEqual([]);
  });
});
