import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { createOidcTenant, createUser, signInThroughPages, startOidcServer, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { cli, eventually, http, ROOT, type HttpResult, type TestServer } from '../helpers/test-server';
import { holdTestClock } from '../helpers/test-clock';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * The service's own account pages in Chromium (docs/accounts-and-oidc.md, "The account pages";
 * docs/data-rights.md, "Delegated requests"): driven by their labels, through the provider's real
 * sign-in pages, axe-clean at 360 px, with screenshots for docs/screenshots.
 */
const SHOTS = path.join(ROOT, 'docs', 'screenshots');
const PHONE = { width: 360, height: 740 };

describe('the account pages in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let tenant: OidcTenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [server, browser, receiver] = await Promise.all([
      // JOB_RETRY_SCALE: a delegated request's callback that fails its first attempt (anything but a 2xx within 10 s)
      // is retried 1-2 minutes later, after the test's wait for it; scaled, the retry comes within that wait (issue 47).
      startOidcServer({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', JOB_RETRY_SCALE: '0.02' }),
      // The verification is finished in this browser, which alone may keep it (issue #25 finding 4).
      launchChromium(),
      WebhookReceiver.start(),
    ]);
    tenant = await createOidcTenant(server, 'Acme Shop');
    expect((await cli(server.env, ['flow', 'update', '--tenant', tenant.tenant_id, '--display-name', 'Acme Shop', '--json'])).code).toBe(0);
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  async function axe(page: Page, step: string): Promise<void> {
    await page.setViewportSize(PHONE);
    const r = await new AxeBuilder({ page }).analyze();
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${step}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(bad).toEqual([]);
  }

  const codeFromMail = async (email: string) => {
    const mail = await cli(server.env, ['mail', 'list', '--to', email, '--json']);
    return /\b(\d{6})\b/.exec((mail.json as { messages: { text: string }[] }).messages[0].text)![1];
  };

  test('a new person keeps a finished verification: signs up from the hosted page, and the tenant then sees them', async () => {
    // A test session's page needs no camera (D22): Approved chosen there, before its 10 s clock, finishes it and
    // makes this browser the one that may keep it. The clock is held until the choice is answered, so a loaded
    // machine cannot make the choice late (test/helpers/test-clock.ts; issue 47).
    let created!: HttpResult;
    let context!: BrowserContext;
    let hosted!: Page;
    for (;;) {
      created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
      expect(created.status).toBe(201);
      const clock = await holdTestClock(server, created.body.id as string, 'terminal');
      if (!clock) continue;
      context = await browser.newContext({ viewport: PHONE, locale: 'en-US' });
      hosted = await context.newPage();
      await hosted.goto(created.body.hosted_url);
      await hosted.getByRole('heading', { name: 'This is a test verification' }).waitFor();
      const answer = hosted.waitForResponse((r) => r.url().endsWith('/test-outcome'));
      await hosted.getByRole('button', { name: 'Approved' }).press('Enter');
      expect((await answer).status()).toBe(200);
      await clock.release();
      break;
    }
    const id = created.body.id as string;
    await hosted.getByRole('heading', { name: 'Thank you' }).waitFor({ timeout: 60_000 });
    const done = (await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key })).body;
    expect(done.status).toBe('success');
    // Whoever else holds the hosted URL sees the same last page without the keep form: only the capturing browser may keep it.
    const elsewhere = await browser.newContext({ viewport: PHONE, locale: 'en-US' });
    const other = await elsewhere.newPage();
    await other.goto(created.body.hosted_url);
    await other.getByRole('heading', { name: 'Thank you' }).waitFor();
    expect(await other.getByRole('button', { name: 'Keep this verification in your account' }).count()).toBe(0);
    await elsewhere.close();
    const keep = hosted.getByRole('button', { name: 'Keep this verification in your account' });
    await keep.waitFor();
    // The page credential is in the form only while it is being sent.
    expect(await hosted.locator('input[name=credential]').inputValue()).toBe('');
    expect(await hosted.locator('input[name=keep_secret]').inputValue()).toBe('');
    const [tab] = await Promise.all([context.waitForEvent('page'), keep.click()]);

    const email = testEmail('keeper');
    await tab.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await tab.getByText('Sign in to your identity account.').isVisible()).toBe(true);
    await tab.getByRole('link', { name: 'Create an account' }).click();
    await tab.getByLabel('Email').fill(email);
    await tab.getByLabel('Password').fill('a long enough password');
    await tab.getByRole('button', { name: 'Continue' }).click();
    await tab.getByLabel('Code').fill(await codeFromMail(email));
    await tab.getByRole('button', { name: 'Continue' }).click();
    await tab.getByRole('heading', { name: 'Verification kept in your account' }).waitFor();
    expect(await tab.locator('#kept').textContent()).toBe('Your verification for Acme Shop is now kept in your identity account.');
    expect(new URL(tab.url()).pathname).toBe(`/account/keep/${id}`);
    await axe(tab, 'kept');
    await tab.screenshot({ path: path.join(SHOTS, 'account-keep-verification.png') });
    await context.close();

    // The tenant reads its own subject of the person on the session; a test-mode result awards no badge (live results only).
    const session = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key });
    const { tokens, client } = await signInThroughPages(server, tenant, email, 'a long enough password', { scope: 'openid verification' });
    expect(session.body.user_sub).toBe(tokens.claims().sub);
    expect(done.result.badges.length).toBeGreaterThan(0);
    expect((await client.userinfo(tokens.access_token!)).service_verification).toEqual({ badges: [], tier: null, verified_at: null });
  });

  test('a delegated request: confirmed from the mailed link in English, declined in German, each after signing in', async () => {
    const email = testEmail('lin.browser');
    await createUser(server, email);
    const sub = (await signInThroughPages(server, tenant, email, undefined, { scope: 'openid' })).tokens.claims().sub;
    const initiate = async () => {
      const r = await http(server, 'POST', '/v1/developer/dsr/initiate', { key: tenant.test_api_key, json: { user_sub: sub, purpose: 'access', delegated_by_tenant: true, callback_url: receiver.url('/dsr') } });
      expect(r.status).toBe(202);
      const mail = await eventually(async () => ((await cli(server.env, ['mail', 'list', '--to', email, '--json'])).json!.messages as { text: string }[]).find((m) => m.text.includes(r.body.id)));
      return { id: r.body.id as string, link: /https?:\/\/\S+\/account\/requests\/\S+/.exec(mail.text)![0] };
    };
    const callback = async (id: string) => {
      try {
        return await eventually(async () => receiver.at('/dsr').map((r) => JSON.parse(r.body)).find((e) => e.data.dsr_id === id), 60_000);
      } catch (err) {
        // What the server did with the callback's job: the one clue a CI run that misses it leaves.
        console.log((await server.settledLogs()).split('\n').filter((l) => /callback|job failed|dsr/i.test(l) && !l.includes('"msg":"request"')).slice(-15).join('\n'));
        throw err;
      }
    };
    const signIn = async (page: Page, labels: { email: string; password: string; button: string }) => {
      await page.getByLabel(labels.email).fill(email);
      await page.getByLabel(labels.password).fill('correct horse battery');
      await page.getByRole('button', { name: labels.button }).click();
    };

    const first = await initiate();
    const en = await browser.newContext({ viewport: PHONE, locale: 'en-US' });
    const page = await en.newPage();
    await page.goto(first.link);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(page, { email: 'Email', password: 'Password', button: 'Sign in' });
    await page.getByRole('heading', { name: 'Share a copy of your data with Acme Shop?' }).waitFor();
    expect(await page.getByRole('listitem').allTextContents()).toEqual(expect.arrayContaining(['your posts, comments, likes, follows and messages']));
    expect(await page.locator('#confirm-by').textContent()).toMatch(/^If you do nothing, the request is cancelled on \w+ \d{1,2}, \d{4} and nothing is shared\.$/);
    await axe(page, 'dsr-confirmation');
    await page.screenshot({ path: path.join(SHOTS, 'dsr-confirmation.png'), fullPage: true });
    await page.getByRole('button', { name: 'Confirm and share' }).click();
    await page.getByRole('heading', { name: 'You confirmed the request' }).waitFor();
    await axe(page, 'dsr-confirmed');
    expect((await callback(first.id)).type).toBe('dsr.completed');
    // An altered link: a page with its code, not an error document.
    await page.goto(first.link.replace(/token=.{4}/, 'token=AAAA'));
    expect(await page.locator('#problem-code').getAttribute('data-code')).toBe('link_invalid');
    await axe(page, 'link-invalid');
    await en.close();

    const second = await initiate();
    const de = await browser.newContext({ viewport: PHONE, locale: 'de-DE' });
    const seite = await de.newPage();
    await seite.goto(second.link);
    await seite.getByRole('heading', { name: 'Anmelden' }).waitFor();
    await signIn(seite, { email: 'E-Mail', password: 'Passwort', button: 'Anmelden' });
    await seite.getByRole('heading', { name: 'Eine Kopie Ihrer Daten mit Acme Shop teilen?' }).waitFor();
    expect(await seite.locator('html').getAttribute('lang')).toBe('de-DE');
    await axe(seite, 'dsr-confirmation-de');
    await seite.getByRole('button', { name: 'Ablehnen' }).click();
    await seite.getByRole('heading', { name: 'Sie haben die Anfrage abgelehnt' }).waitFor();
    expect(await callback(second.id)).toMatchObject({ type: 'dsr.denied', data: { reason: 'declined_by_user' } });
    await de.close();
  });
});
