import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { checkOf, decided } from '../helpers/live-session';
import { writeFakeCameraClip } from '../helpers/fake-camera';
import { freePort } from '../helpers/oidc-login';
import { SimulatedWallet, SPECIMEN_PERSON, type AnswerOptions } from '../helpers/simulated-wallet';
import { freshCertificateAuthority } from '../helpers/test-pki';
import { cli, createTenant, ENGINES_OFF, http, ROOT, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';

/** The page as a phone shows it, for docs/digital-ids.md. */
async function shot(page: Page, file: string): Promise<void> {
  await page.setViewportSize({ width: 360, height: 780 });
  await page.screenshot({ path: path.join(ROOT, 'docs', 'screenshots', file), fullPage: true });
}

/**
 * The hosted page's "Use a digital ID" in Chromium (D24). Same device: the test injects
 * `navigator.credentials.get` (and `DigitalCredential`), answered by the simulated wallet in this process,
 * as a browser with the Digital Credentials API hands the request to the phone's wallet. Without the API the
 * page shows the QR code and waits for the wallet on the other device. The server's public address is this
 * browser's origin (the same-device answer is bound to it). Engines off: the page is what this file is about.
 */

let server: TestServer;
let browser: Browser;
let acme: Tenant;
let wallet: SimulatedWallet;

beforeAll(async () => {
  const port = await freePort();
  const clip = writeFakeCameraClip();
  [server, browser] = await Promise.all([
    startServer(testEnv({ PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}`, RATE_LIMIT_ENABLED: 'false', ...ENGINES_OFF })),
    launchChromium({ args: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${clip}`] }),
  ]);
  server.url = `http://localhost:${port}`;
  acme = await createTenant(server);
  const ca = freshCertificateAuthority('Operator IACA');
  const pem = path.join(mkdtempSync(path.join(tmpdir(), 'digital-id-browser-')), 'operator.pem');
  writeFileSync(pem, ca.certificatePem);
  for (const kind of ['iaca', 'sd-jwt-vc-issuer']) expect((await cli(server.env, ['trust', 'add', '--environment', 'live', '--kind', kind, '--pem', pem, '--json'])).code).toBe(0);
  wallet = new SimulatedWallet(
    SPECIMEN_PERSON,
    undefined,
    ca,
  );
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function liveSession(): Promise<{ id: string; hosted_url: string }> {
  const r = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T1' } });
  expect(r.status).toBe(201);
  return { id: r.body.id, hosted_url: r.body.hosted_url };
}

/**
 * A browser with the Digital Credentials API whose wallet is the simulated one. As a browser does, it hands
 * the wallet the first of the page's requests in a protocol the wallet speaks (`speaks`: all by default;
 * `['org-iso-mdoc']` is Safari with Apple Wallet).
 */
async function withDigitalCredentials(page: Page, options: AnswerOptions, speaks: string[] | null = null): Promise<void> {
  await page.exposeFunction('__walletAnswer', async (request: string, origin: string) =>
    JSON.stringify(await wallet.answerDigitalCredentialRequest(JSON.parse(request) as { protocol: string; data: Record<string, unknown> }, origin, options)),
  );
  await page.addInitScript((protocols: string[] | null) => {
    const w = window as unknown as { DigitalCredential: unknown; __walletAnswer: (r: string, o: string) => Promise<string> };
    w.DigitalCredential = class DigitalCredential {};
    CredentialsContainer.prototype.get = async function (options?: CredentialRequestOptions) {
      const digital = (options as { digital?: { requests: Array<{ protocol: string }> } } | undefined)?.digital;
      if (!digital) throw new DOMException('only digital credentials here', 'NotSupportedError');
      const chosen = digital.requests.find((r) => !protocols || protocols.includes(r.protocol));
      if (!chosen) throw new DOMException('no request in a protocol this wallet speaks', 'NotSupportedError');
      const answer = JSON.parse(await w.__walletAnswer(JSON.stringify(chosen), location.origin)) as { protocol: string; data: unknown };
      return { type: 'digital', protocol: answer.protocol, data: answer.data } as unknown as Credential;
    };
  }, speaks);
}

async function toDocumentChoice(page: Page, hostedUrl: string): Promise<void> {
  await page.goto(hostedUrl);
  await page.getByRole('button', { name: 'Agree and continue' }).press('Enter');
  await page.getByRole('heading', { name: 'Which document will you use?' }).waitFor();
}

/** A live session through the page's "Use a digital ID" (the browser's wallet answers), its selfie and its decision. */
async function decidedOnSameDevice(options: AnswerOptions, speaks: string[] | null = null): Promise<any> {
  const page = await browser.newPage();
  await withDigitalCredentials(page, options, speaks);
  const s = await liveSession();
  await toDocumentChoice(page, s.hosted_url);
  await page.getByRole('button', { name: 'Use a digital ID' }).press('Enter');
  await page.getByRole('heading', { name: 'Take a selfie' }).waitFor({ timeout: 60_000 });
  await page.locator('[data-action=take-photo]').click();
  const result = await decided(server, acme.live_api_key, s.id);
  await page.close();
  return result;
}

describe('"Use a digital ID" on the hosted page', () => {
  it('same device: the wallet answers through navigator.credentials.get, then the selfie, and the session is decided on digital_id', async () => {
    const result = await decidedOnSameDevice({ credential: 'mdl' });
    // Face match is switched off here (ENGINES_OFF), so a person decides; the digital ID itself passed.
    expect(result.status).toBe('manual_review');
    expect(checkOf(result, 'digital_id')).toMatchObject({ status: 'pass', details: { channel: 'dc_api', format: 'mso_mdoc' } });
  });

  it('same device, a wallet that speaks only ISO 18013-7 Annex C (org-iso-mdoc, as Safari with Apple Wallet): its sealed mdoc is verified and the session decided on it', async () => {
    const result = await decidedOnSameDevice({ credential: 'mdl' }, ['org-iso-mdoc']);
    expect(result.status).toBe('manual_review');
    expect(checkOf(result, 'digital_id')).toMatchObject({ status: 'pass', details: { channel: 'dc_api', format: 'mso_mdoc', credential_type: 'org.iso.18013.5.1.mDL' } });
    expect(checkOf(result, 'digital_id').reason).toMatch(/verified doctype, issuer_chain, .*device_auth$/);
  });

  it('same device: a refused answer says why and offers to try again or photograph the document', async () => {
    const page = await browser.newPage();
    await withDigitalCredentials(page, { credential: 'pid_sd_jwt', misbehave: 'other_transcript' });
    const s = await liveSession();
    await toDocumentChoice(page, s.hosted_url);
    await page.getByRole('button', { name: 'Use a digital ID' }).press('Enter');
    await page.getByRole('heading', { name: 'Your digital ID could not be used' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('audience_mismatch');
    await shot(page, 'hosted-digital-id-refused.png');
    await page.getByRole('button', { name: 'Photograph my document instead' }).press('Enter');
    await page.getByRole('heading', { name: 'Which document will you use?' }).waitFor();
    await page.close();
  });

  it('another device: without the API the page shows the QR code and goes on when the wallet has answered', async () => {
    const page = await browser.newPage();
    // This Chromium may ship the API itself: take it away, as on a browser without it.
    await page.addInitScript(() => void delete (window as unknown as { DigitalCredential?: unknown }).DigitalCredential);
    const s = await liveSession();
    await toDocumentChoice(page, s.hosted_url);
    const requested = page.waitForResponse((r) => r.url().endsWith('/digital-id/requests') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Use a digital ID' }).press('Enter');
    const request = (await (await requested).json()) as { cross_device: { link: string } };
    await page.getByRole('img', { name: 'QR code that asks your wallet for your digital ID' }).waitFor();
    await shot(page, 'hosted-digital-id-qr.png');
    const answered = await wallet.answerOpenid4vpLink(request.cross_device.link, { credential: 'pid_mdoc' });
    expect(await answered.json()).toEqual({ status: 'verified' });
    await page.getByRole('heading', { name: 'Take a selfie' }).waitFor({ timeout: 60_000 });
    await page.close();
  });
});
