import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createOidcTenant, createUser, signInThroughPages, startOidcServer, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { cli, eventually, http, ROOT, type TestServer } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * The service's own account pages in Chromium (docs/accounts-and-oidc.md, "The account pages";
 * docs/data-rights.md, "Delegated requests"): driven by their labels, through the provider's real
 * sign-in pages, axe-clean at 360 px, with screenshots for docs/screenshots.
 */
const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) console.log(`account-pages.browser: skipped, ${CHROMIUM} is missing (apt-get install chromium)`);
const SHOTS = path.join(ROOT, 'docs', 'screenshots');
const PHONE = { width: 360, height: 740 };

(haveChromium ? describe : describe.skip)('the account pages in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let tenant: OidcTenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [server, browser, receiver] = await Promise.all([
      startOidcServer({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] }),
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
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T2' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // A test session that no page opened resolves on its own 10 s after creation.
    const done = await eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key });
      return r.body.status === 'success' ? r.body : undefined;
    }, 30_000);
    const context = await browser.newContext({ viewport: PHONE, locale: 'en-US' });
    const hosted = await context.newPage();
    await hosted.goto(created.body.hosted_url);
    await hosted.getByRole('heading', { name: 'Thank you' }).waitFor();
    const keep = hosted.getByRole('button', { name: 'Keep this verification in your account' });
    await keep.waitFor();
    // The page credential is in the form only while it is being sent.
    expect(await hosted.locator('input[name=credential]').inputValue()).toBe('');
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

    // The tenant reads its own subject of the person on the session; signed in to the tenant, userinfo carries the badges.
    const session = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key });
    const { tokens, client } = await signInThroughPages(server, tenant, email, 'a long enough password', { scope: 'openid verification' });
    expect(session.body.user_sub).toBe(tokens.claims().sub);
    expect((await client.userinfo(tokens.access_token!)).service_verification).toMatchObject({ badges: [...done.result.badges].sort(), tier: done.result.achieved_tier });
  });
});
