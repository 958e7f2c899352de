import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { addConsoleCookie, CONSOLE_PASSWORD, createConsoleMember, invitationLinkFor } from '../helpers/console-login';
import { freePort, testEmail } from '../helpers/oidc-login';
import { cli, createTenant, ROOT, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * The console's identity pages in Chromium, by labels (docs/console.md): an invitation accepted by a
 * new account (sign-up with its mailed code), passkey enrolment with Chromium's virtual authenticator
 * (DevTools protocol, WebAuthn domain), the recovery codes, signing out and in again with the passkey;
 * the Members page in en-US and de-DE. axe-core: 0 serious or critical at 360 px and 1440 px.
 * WebAuthn needs a domain for its relying party, so this server's public address is http://localhost.
 */
const SHOTS = path.join(ROOT, 'docs', 'screenshots');
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1440, height: 900 };

describe('the console in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let acme: Tenant;

  beforeAll(async () => {
    const port = await freePort();
    [server, browser] = await Promise.all([
      startServer(testEnv({ PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}`, RATE_LIMIT_ENABLED: 'false' })),
      launchChromium(),
    ]);
    server.url = `http://localhost:${port}`;
    acme = await createTenant(server, 'Acme Shop');
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** axe at both widths; the page is left at `end`. */
  async function axe(page: Page, step: string, end = PHONE): Promise<void> {
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      const r = await new AxeBuilder({ page }).analyze();
      const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${step} @${size.width}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      expect(bad).toEqual([]);
    }
    await page.setViewportSize(end);
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `console-${name}.png`), fullPage: true });

  test('an invited reviewer signs up, enrols a passkey, signs out, and signs in again with the passkey', async () => {
    const email = testEmail('passkey.reviewer');
    expect((await cli(server.env, ['member', 'invite', '--tenant', acme.tenant_id, '--email', email, '--role', 'reviewer', '--json'])).code).toBe(0);
    const link = await invitationLinkFor(server, email);

    const context = await browser.newContext({ viewport: PHONE, locale: 'en-US' });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });

    await page.goto(link);
    await page.getByRole('heading', { name: 'Join Acme Shop' }).waitFor();
    await axe(page, 'invitation');
    await shot(page, '1-invitation');
    await page.getByRole('button', { name: 'Accept and sign in' }).click();

    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    const mail = await cli(server.env, ['mail', 'list', '--to', email, '--json']);
    const code = (mail.json!.messages as { subject: string }[]).map((mm) => /\b(\d{6})\b/.exec(mm.subject)?.[1]).find(Boolean)!;
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();

    // A reviewer sees evidence: the console asks for a second factor before anything else.
    await page.getByRole('heading', { name: 'Set up a second factor' }).waitFor();
    expect(await page.getByText('Acme Shop · Review console').isVisible()).toBe(true);
    await axe(page, 'enrol');
    await shot(page, '2-second-factor-enrol');
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    expect(await page.getByRole('list', { name: 'Recovery code' }).getByRole('listitem').count()).toBe(10);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    await axe(page, 'recovery-codes');
    await shot(page, '3-recovery-codes');
    await page.getByRole('link', { name: 'Continue to the console' }).click();
    await page.waitForURL((u) => u.pathname === '/console/queue');
    expect(await page.getByText(`Signed in as ${email} (Reviewer)`).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'You have signed out' }).waitFor();
    await axe(page, 'signed-out');
    await page.getByRole('link', { name: 'Sign in again' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await axe(page, 'verify');
    await shot(page, '4-second-factor-verify');
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await page.waitForURL((u) => u.pathname === '/console/queue');
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(after.credentials[0].signCount).toBeGreaterThan(credentials[0].signCount);

    // A reviewer reads the Members page but has no forms on it.
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'Send invitation' }).count()).toBe(0);
    await context.close();
  });

  test('an owner invites from the Members page and changes a role, in en-US and de-DE', async () => {
    const owner = await createConsoleMember(server, acme.tenant_id, 'owner');
    const viewer = await createConsoleMember(server, acme.tenant_id, 'viewer');
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-US' });
    await addConsoleCookie(context, server, owner);
    const page = await context.newPage();
    await page.goto(`${server.url}/console/members`);
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page.getByLabel('Email address').fill('not an address');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');
    await axe(page, 'members-error', DESKTOP);
    const invitee = testEmail('from.page');
    await page.getByLabel('Email address').fill(invitee);
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').getByText('The invitation is sent.').waitFor();
    expect(await invitationLinkFor(server, invitee)).toContain('/console/invitations/');
    await page.getByLabel(`New role for ${viewer.email}`).selectOption('reviewer');
    await page.getByRole('row', { name: new RegExp(viewer.email) }).getByRole('button', { name: 'Change role' }).click();
    await page.getByRole('status').getByText('The role is changed.').waitFor();
    expect(await page.getByRole('row', { name: new RegExp(viewer.email) }).getByRole('cell', { name: 'Reviewer', exact: true }).count()).toBe(1);
    await axe(page, 'members', DESKTOP);
    await shot(page, '5-members');
    await page.setViewportSize(PHONE);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width); // no sideways scrolling at 360 px
    await shot(page, '6-members-phone');
    await context.close();

    const de = await browser.newContext({ viewport: PHONE, locale: 'de-DE' });
    await addConsoleCookie(de, server, { session: (await createConsoleMember(server, acme.tenant_id, 'admin')).session });
    const dePage = await de.newPage();
    await dePage.goto(`${server.url}/console/members`);
    await dePage.getByRole('heading', { name: 'Mitglieder', level: 1 }).waitFor();
    expect(await dePage.locator('html').getAttribute('lang')).toBe('de-DE');
    expect(await dePage.getByRole('button', { name: 'Einladung senden' }).isVisible()).toBe(true);
    await axe(dePage, 'members-de');
    await shot(dePage, '7-members-de');
    await de.close();
  });
});
