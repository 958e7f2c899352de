import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { generators } from 'openid-client';
import { createOidcTenant, createUser, relyingParty, startOidcServer, type OidcTenant, testEmail } from '../helpers/oidc-login';
import { cli, http, ROOT, type TestServer } from '../helpers/test-server';

/**
 * The sign-up, email code, sign-in and consent pages in Chromium, driven by their labels, in
 * en-US and de-DE, axe-clean at 360 px, with screenshots for docs/screenshots (docs/accounts-and-oidc.md).
 */
const SHOTS = path.join(ROOT, 'docs', 'screenshots');
const PHONE = { width: 360, height: 740 };

describe('the sign-in pages in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let tenant: OidcTenant;
  // The app's redirect_uri is a real page on loopback (the browser really lands on it); it records what arrived.
  let app: Server;
  let redirectUri: string;
  const arrived: string[] = [];

  beforeAll(async () => {
    app = createServer((req, res) => {
      if (req.url?.startsWith('/callback')) arrived.push(`${redirectUri.replace(/\/callback$/, '')}${req.url}`);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html lang="en"><title>App</title><p>Back at the app</p></html>');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(app.address() as { port: number }).port}/callback`;
    [server, browser] = await Promise.all([
      startOidcServer(),
      launchChromium(),
    ]);
    tenant = await createOidcTenant(server, 'Acme Shop', redirectUri);
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => app?.close(resolve));
  });

  async function axe(page: Page, step: string): Promise<void> {
    const r = await new AxeBuilder({ page }).analyze();
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${step}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(bad).toEqual([]);
  }

  /** Opens the authorization URL in a phone-sized page; the flow ends on the app's page on loopback. */
  async function start(uiLocales?: string) {
    const client = await relyingParty(server, tenant, redirectUri);
    const verifier = generators.codeVerifier();
    const par = await client.pushedAuthorizationRequest({
      scope: 'openid email profile verification',
      code_challenge: generators.codeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st',
      ...(uiLocales ? { ui_locales: uiLocales } : {}),
    });
    const context = await browser.newContext({ viewport: PHONE, locale: uiLocales ?? 'en-US' });
    const page = await context.newPage();
    await page.goto(client.authorizationUrl({ request_uri: par.request_uri }));
    return { client, verifier, page, context, callback: () => arrived.at(-1) ?? null };
  }

  test('a new person signs up with email, password and the emailed code, consents, and the app gets their email', async () => {
    const { client, verifier, page, context, callback } = await start();
    await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await axe(page, 'sign-in');
    await page.screenshot({ path: path.join(SHOTS, 'accounts-1-sign-in.png') });
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Email').fill(testEmail('new.person'));
    await page.getByLabel('Password').fill('a long enough password');
    await axe(page, 'sign-up');
    await page.screenshot({ path: path.join(SHOTS, 'accounts-2-sign-up.png') });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Code').waitFor();
    await axe(page, 'code');
    await page.screenshot({ path: path.join(SHOTS, 'accounts-3-code.png') });
    const mail = await cli(server.env, ['mail', 'list', '--to', testEmail('new.person'), '--json']);
    const code = /\b(\d{6})\b/.exec((mail.json as { messages: { text: string }[] }).messages[0].text)![1];
    await page.getByLabel('Code').fill(code === '000000' ? '111111' : '000000'.replace(/0/g, String((Number(code[0]) + 1) % 10)));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForLoadState();
    if (process.env.DEBUG_PAGES) console.log(await page.content());
    await page.getByRole('alert').waitFor();
    await axe(page, 'code-error');
    await page.screenshot({ path: path.join(SHOTS, 'accounts-4-code-error.png') });
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Share with Acme Shop' }).waitFor();
    expect(await page.getByRole('listitem').allTextContents()).toEqual(
      expect.arrayContaining(['See your email address', 'See your verification badges, tier and when you were verified']),
    );
    await axe(page, 'consent');
    await page.screenshot({ path: path.join(SHOTS, 'accounts-5-consent.png') });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('Back at the app').waitFor();
    const tokens = await client.callback(redirectUri, client.callbackParams(callback()!), { code_verifier: verifier, state: 'st' });
    expect(tokens.claims().iss).toBe(`${server.url}/v1/oidc`);
    expect(await client.userinfo(tokens.access_token!)).toMatchObject({ email: testEmail('new.person'), email_verified: true });
    await context.close();
  });

  test('a wrong password shows one generic message, in German for a German app', async () => {
    await createUser(server, testEmail('erika'));
    const { page, context } = await start('de-DE');
    await page.getByRole('heading', { name: 'Anmelden' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de-DE');
    await page.getByLabel('E-Mail').fill(testEmail('erika'));
    await page.getByLabel('Passwort').fill('not the password');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('E-Mail oder Passwort stimmen nicht');
    expect(await page.getByLabel('Passwort').getAttribute('aria-invalid')).toBe('true');
    await axe(page, 'sign-in-error-de');
    await page.screenshot({ path: path.join(SHOTS, 'accounts-6-sign-in-error-de.png') });
    await page.getByLabel('Passwort').fill('correct horse battery');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('heading', { name: 'Mit Acme Shop teilen' }).waitFor();
    await axe(page, 'consent-de');
    await context.close();
    expect((await http(server, 'GET', '/accounts/accounts.css')).status).toBe(200);
  });
});
