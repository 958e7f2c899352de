import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { createOidcTenant, createUser, signInThroughPages, startOidcServer, TENANT_ACCOUNT_SCOPE, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { eventually, http, ROOT, type TestServer } from '../helpers/test-server';

/**
 * The account portal in Chromium (D20, docs/accounts-and-oidc.md, "The account portal"): driven by
 * labels and roles through the provider's real sign-in pages, en-US and de-DE, axe-clean at 360 px
 * (0 serious or critical), with screenshots for docs/screenshots.
 */
const SHOTS = path.join(ROOT, 'docs', 'screenshots');
const PHONE = { width: 360, height: 740 };
const PASSWORD = 'correct horse battery';

describe('the account portal in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let acme: OidcTenant;
  let globex: OidcTenant;

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startOidcServer({ RATE_LIMIT_ENABLED: 'false' }),
      launchChromium(),
    ]);
    [acme, globex] = [await createOidcTenant(server, 'Acme Shop'), await createOidcTenant(server, 'Globex Bank')];
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function axe(page: Page, step: string): Promise<void> {
    await page.setViewportSize(PHONE);
    const r = await new AxeBuilder({ page }).analyze();
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${step}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(bad).toEqual([]);
  }

  /** A user signed in to both tenants' apps, each of which verified them (test sessions resolve 10 s after creation). */
  async function verifiedUser(local: string): Promise<string> {
    const email = testEmail(local);
    await createUser(server, email);
    const ids = await Promise.all(
      [acme, globex].map(async (tenant) => {
        const sub = (await signInThroughPages(server, tenant, email, undefined, { resource: true, scope: TENANT_ACCOUNT_SCOPE })).tokens.claims().sub;
        const r = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T2', user_sub: sub } });
        expect(r.status).toBe(201);
        return { tenant, id: r.body.id as string };
      }),
    );
    await Promise.all(ids.map(({ tenant, id }) => eventually(async () => ((await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key })).body.status === 'success' ? true : undefined))));
    return email;
  }

  async function signIn(page: Page, email: string, labels: { email: string; password: string; button: string }): Promise<void> {
    await page.getByLabel(labels.email).fill(email);
    await page.getByLabel(labels.password).fill(PASSWORD);
    await page.getByRole('button', { name: labels.button }).click();
  }

  test('en-US: the overview, the profile, removing an app, restricting and lifting, a review, an export with its key, deleting the account', async () => {
    const email = await verifiedUser('ada.browser');
    const context = await browser.newContext({ viewport: PHONE, locale: 'en-US', acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${server.url}/account`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(page, email, { email: 'Email', password: 'Password', button: 'Sign in' });
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    for (const name of ['Profile', 'Verifications', 'Connected apps', 'Your requests', 'Your rights']) expect(await page.getByRole('heading', { name, level: 2 }).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: /Acme Shop/, level: 3 }).count()).toBe(2); // its verification and its app
    expect(await page.getByRole('heading', { name: /Globex Bank/, level: 3 }).count()).toBe(2);
    await axe(page, 'overview');
    await page.screenshot({ path: path.join(SHOTS, 'account-portal-overview.png'), fullPage: true });

    await page.getByRole('link', { name: 'Change your profile' }).click();
    await page.getByLabel('Handle').fill('Not A Handle');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByLabel('Handle').getAttribute('aria-invalid')).toBe('true');
    await axe(page, 'profile-error');
    await page.screenshot({ path: path.join(SHOTS, 'account-portal-profile-error.png'), fullPage: true });
    await page.getByLabel('Display name').fill('Ada Lovelace');
    await page.getByLabel('Handle').fill(`ada_${randomBytes(4).toString('hex')}`); // unique: a PostgreSQL server keeps earlier runs' users
    await page.getByLabel('About you').fill('Writes programs for engines.');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('status').getByText('Your profile is saved.').waitFor();
    expect(await page.getByText('Ada Lovelace').isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Remove access for Acme Shop' }).click();
    await page.getByRole('status').getByText('That app can no longer use your account.').waitFor();
    expect(await page.getByRole('button', { name: 'Remove access for Acme Shop' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove access for Globex Bank' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Restrict processing' }).click();
    await page.getByRole('status').getByText(/Processing of your data is restricted/).waitFor();
    await axe(page, 'restricted');
    await page.getByRole('button', { name: 'Lift the restriction' }).click();
    await page.getByRole('status').getByText('The restriction is lifted.').waitFor();

    await page.getByRole('link', { name: 'Ask for a review of the decision by Globex Bank' }).click();
    await page.getByRole('heading', { name: 'Ask for a review' }).waitFor();
    await axe(page, 'review');
    await page.screenshot({ path: path.join(SHOTS, 'account-portal-review.png'), fullPage: true });
    await page.getByLabel('Why should the decision be looked at again?').fill('The photo was mine; please look again.');
    await page.getByRole('button', { name: 'Ask for a review' }).click();
    await page.getByRole('status').getByText(/Your request for a review is received/).waitFor();

    await page.getByRole('link', { name: 'Request a copy' }).click();
    await page.getByRole('heading', { name: 'Get a copy of your data' }).waitFor();
    await axe(page, 'export');
    await page.getByRole('button', { name: 'Request a copy' }).click();
    await page.getByRole('status').getByText(/Your copy is being prepared/).waitFor();
    await eventually(async () => {
      await page.reload();
      return (await page.getByRole('link', { name: 'Download your copy' }).count()) > 0 ? true : undefined;
    }, 60_000, 1000);
    await axe(page, 'requests');
    await page.screenshot({ path: path.join(SHOTS, 'account-portal-requests.png'), fullPage: true });
    await page.getByRole('link', { name: 'Download your copy' }).click();
    await page.getByRole('heading', { name: 'Key for your documents' }).waitFor();
    const key = await page.getByLabel('Document key').inputValue();
    expect(key.length).toBeGreaterThan(40);
    await axe(page, 'download');
    await page.screenshot({ path: path.join(SHOTS, 'account-portal-download.png'), fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the file (zip)' }).click()]);
    expect(download.suggestedFilename()).toBe('data-export.zip');
    await page.reload();
    expect(await page.getByLabel('Document key').count()).toBe(0);
    expect(await page.locator('#key-shown').textContent()).toMatch(/was shown on/);

    await page.getByRole('link', { name: 'Back to your account' }).click();
    await page.getByRole('link', { name: 'Delete your account' }).click();
    await page.getByRole('heading', { name: 'Delete your account' }).waitFor();
    expect(await page.getByText(/For 14 days/).isVisible()).toBe(true);
    await axe(page, 'delete');
    await page.screenshot({ path: path.join(SHOTS, 'account-portal-delete.png'), fullPage: true });
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByRole('heading', { name: 'Your account is deleted' }).waitFor();
    await axe(page, 'deleted');
    await context.close();
  });

  test('de-DE: the overview and the deletion page in German', async () => {
    const email = await verifiedUser('bea.browser');
    const context = await browser.newContext({ viewport: PHONE, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${server.url}/account`);
    await page.getByRole('heading', { name: 'Anmelden' }).waitFor();
    await signIn(page, email, { email: 'E-Mail', password: 'Passwort', button: 'Anmelden' });
    await page.getByRole('heading', { name: 'Ihr Konto', level: 1 }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de-DE');
    for (const name of ['Profil', 'Verifizierungen', 'Verbundene Apps', 'Ihre Anfragen', 'Ihre Rechte']) expect(await page.getByRole('heading', { name, level: 2 }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Zugriff für Globex Bank entfernen' }).isVisible()).toBe(true);
    await axe(page, 'overview-de');
    await page.screenshot({ path: path.join(SHOTS, 'account-portal-overview-de.png'), fullPage: true });
    await page.getByRole('link', { name: 'Ihr Konto löschen' }).click();
    await page.getByRole('heading', { name: 'Ihr Konto löschen' }).waitFor();
    expect(await page.getByText(/14 Tage lang/).isVisible()).toBe(true);
    await axe(page, 'delete-de');
    await context.close();
  });
});
