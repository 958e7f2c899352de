import * as OTPAuth from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { browse, CookieJar, formAction, passInteraction, type Hop } from '../../bench/oidc-flow';
import type { MemberRole } from '../../src/members/member';
import { createUser, testEmail } from './oidc-login';
import { cli, type TestServer } from './test-server';

/**
 * Console members in tests (docs/console.md): made through the CLI and signed in through the real
 * pages: the provider's sign-in page, the console's callback and, for reviewer and above, the TOTP
 * enrolment (first time) or verification, exactly as a browser posts them. The server must be
 * started with PUBLIC_BASE_URL equal to its address (test/helpers/oidc-login.ts startOidcServer).
 */

export const CONSOLE_PASSWORD = 'correct horse battery';
export const CONSOLE_COOKIE = 'console_session';

export type ConsoleLogin = {
  email: string;
  password: string;
  memberId: string;
  tenantId: string;
  role: MemberRole;
  /** `cookie: <this>` on a request opens the console as this member. */
  cookie: string;
  /** The value of the console_session cookie alone (for a browser context: addConsoleCookie). */
  session: string;
  jar: CookieJar;
  /** Base32 TOTP secret enrolled for reviewer and above (null for a viewer); signs them in again with consoleSignIn. */
  totpSecret: string | null;
  /** Recovery codes shown at enrolment. */
  recoveryCodes: string[];
};

/** A new account made a member of `tenantId` with `role` (CLI `member add`), then signed in to the console (TOTP enrolled for reviewer+). */
export async function createConsoleMember(server: TestServer, tenantId: string, role: MemberRole, o: { email?: string; password?: string } = {}): Promise<ConsoleLogin> {
  const email = o.email ?? testEmail(`${role}.${Math.random().toString(36).slice(2, 8)}`);
  const password = o.password ?? CONSOLE_PASSWORD;
  await createUser(server, email, password);
  const added = await cli(server.env, ['member', 'add', '--tenant', tenantId, '--email', email, '--role', role, '--json']);
  if (added.code !== 0 || !added.json) throw new Error(`member add failed: ${added.stderr} ${added.stdout}`);
  const login = await consoleSignIn(server, email, { password, tenantId });
  return { ...login, memberId: String(added.json.member_id), tenantId, role };
}

/** The invitation link mailed to `email` (the newest), read from the outbox with the CLI. */
export async function invitationLinkFor(server: TestServer, email: string): Promise<string> {
  const r = await cli(server.env, ['mail', 'list', '--to', email, '--json']);
  const messages = (r.json?.messages ?? []) as { text: string }[];
  const link = messages.map((mm) => /https?:\/\/\S+\/console\/invitations\/[A-Za-z0-9]+/.exec(mm.text)?.[0]).find(Boolean);
  if (!link) throw new Error(`no invitation mailed to ${email}: ${r.stdout} ${r.stderr}`);
  return link;
}

const lastStep = new Map<string, number>();

/**
 * A TOTP code of `secret` the console accepts now: the current step's, or, when this process already used
 * that one (each step's code works once), the next step's, which the console's one-step window accepts as
 * newer than the last; only a third code inside one step waits for the clock.
 */
export async function totpCode(secret: string): Promise<string> {
  const current = () => Math.floor(Date.now() / 30_000);
  let step = Math.max(current(), (lastStep.get(secret) ?? -1) + 1);
  while (step > current() + 1) {
    await new Promise((r) => setTimeout(r, 500));
    step = Math.max(current(), (lastStep.get(secret) ?? -1) + 1);
  }
  lastStep.set(secret, step);
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: step * 30_000 });
}

/** The value of field `name` (or of the input with id `name`), in the form posting to `action` when given. */
const valueOf = (page: string, name: string, action?: string): string => {
  const html = action ? page.slice(page.indexOf(`action="${action}"`)) : page;
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html) ?? new RegExp(`id="${name}"[^>]*value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no ${name} on the page:\n${html.slice(0, 500)}`);
  return m[1].replace(/&amp;/g, '&');
};

/**
 * Signs `email` in to the console over HTTP: from /console/sign-in (or from an invitation link,
 * accepting it) through the provider's sign-in page to the callback, then the second factor:
 * with `totpSecret` its code, without one (a reviewer's first sign-in) a TOTP enrolment.
 * A member of several tenants is shown the picker: `tenantId` is chosen there (else the first).
 */
export async function consoleSignIn(
  server: Pick<TestServer, 'url'>,
  email: string,
  o: { password?: string; totpSecret?: string | null; invitationUrl?: string; jar?: CookieJar; tenantId?: string } = {},
): Promise<Omit<ConsoleLogin, 'memberId' | 'tenantId' | 'role'> & { landing: Hop }> {
  const jar = o.jar ?? new CookieJar();
  const password = o.password ?? CONSOLE_PASSWORD;
  const callback = `${server.url}/console/callback`;
  let start: Hop;
  if (o.invitationUrl) {
    const page = await browse(jar, o.invitationUrl);
    if (page.status !== 200) throw new Error(`invitation page ${page.status}`);
    start = await browse(jar, formAction(page), {});
  } else {
    start = await browse(jar, `${server.url}/console/sign-in`);
  }
  if (!start.location) throw new Error(`sign-in did not start: ${start.status} ${start.html.slice(0, 300)}`);
  const back = await passInteraction(jar, start.location, callback, email, password);
  let hop = await browse(jar, back);
  let totpSecret = o.totpSecret ?? null;
  let recoveryCodes: string[] = [];
  for (let i = 0; i < 8 && hop.location; i++) {
    const next = hop.location;
    hop = await browse(jar, next);
    if (hop.status === 200 && new URL(next).pathname === '/console/tenants') {
      const forms = hop.html.split('action="/console/tenants"').slice(1);
      const form = forms.find((f) => !o.tenantId || f.includes(`value="${o.tenantId}"`)) ?? forms[0];
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1];
      hop = await browse(jar, new URL('/console/tenants', server.url).href, { form_token: field('form_token'), tenant_id: field('tenant_id'), return: field('return') });
    } else if (hop.status === 200 && next.includes('/console/second-factor/enrol')) {
      totpSecret = valueOf(hop.html, 'totp-key');
      const action = '/console/second-factor/enrol/totp';
      hop = await browse(jar, new URL(action, server.url).href, { form_token: valueOf(hop.html, 'form_token', action), return: valueOf(hop.html, 'return', action), code: await totpCode(totpSecret) });
    } else if (hop.status === 200 && new URL(next).pathname === '/console/second-factor') {
      if (!totpSecret) throw new Error('the console asks for a second factor and no TOTP secret was given');
      const action = '/console/second-factor/totp';
      hop = await browse(jar, new URL(action, server.url).href, { form_token: valueOf(hop.html, 'form_token', action), return: valueOf(hop.html, 'return', action), code: await totpCode(totpSecret) });
    } else if (hop.status === 200 && next.includes('/console/second-factor/recovery-codes')) {
      recoveryCodes = [...hop.html.matchAll(/<li>([a-z0-9]{5}-[a-z0-9]{5})<\/li>/g)].map((mm) => mm[1]);
      break;
    }
  }
  const session = /(?:^|; )console_session=([^;]+)/.exec(jar.header())?.[1] ?? '';
  return { email, password, cookie: session ? `${CONSOLE_COOKIE}=${session}` : '', session, jar, totpSecret, recoveryCodes, landing: hop };
}

/** Puts a console sign-in made over HTTP into a Playwright browser context. */
export async function addConsoleCookie(context: BrowserContext, server: Pick<TestServer, 'url'>, login: Pick<ConsoleLogin, 'session'>): Promise<void> {
  await context.addCookies([{ name: CONSOLE_COOKIE, value: login.session, url: `${server.url}/console/`, httpOnly: true, sameSite: 'Lax' }]);
}

/** Signs in to the console in Chromium by labels (en-US): the provider's sign-in page, then the TOTP code when asked. */
export async function consoleSignInInBrowser(page: Page, server: Pick<TestServer, 'url'>, login: Pick<ConsoleLogin, 'email' | 'password' | 'totpSecret'>): Promise<void> {
  await page.goto(`${server.url}/console/sign-in`);
  await page.getByLabel('Email').fill(login.email);
  await page.getByLabel('Password').fill(login.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/console/') && !u.pathname.startsWith('/console/callback'));
  if (new URL(page.url()).pathname === '/console/second-factor') {
    if (!login.totpSecret) throw new Error('the console asks for a second factor and no TOTP secret was given');
    await page.getByLabel('Code from your authenticator app').fill(await totpCode(login.totpSecret));
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/console/second-factor'));
  }
}
