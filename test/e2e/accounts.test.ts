import { generators } from 'openid-client';
import { browse, CookieJar, createOidcTenant, createUser, follow, formAction, relyingParty, startOidcServer, TEST_REDIRECT_URI, type Hop, type OidcTenant, testEmail } from '../helpers/oidc-login';
import fs from 'node:fs';
import type { Client } from 'pg';
import { dbClient } from '../helpers/hosted-client';
import { cli, type TestServer } from '../helpers/test-server';

/** CPU the process `pid` has used (user + system, all its threads: scrypt runs on libuv's pool), in ms. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime and stime, in clock ticks of 1/100 s
}

/**
 * Sign-in limits, no account enumeration, and email codes, through the sign-in pages' forms
 * (docs/accounts-and-oidc.md, "Sign-in limits").
 */
describe('sign-in, sign-up and email codes', () => {
  let server: TestServer;
  let tenant: OidcTenant;
  let db: Client;

  beforeAll(async () => {
    server = await startOidcServer();
    tenant = await createOidcTenant(server);
    await createUser(server, testEmail('known'));
    db = await dbClient(server);
  });
  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });

  /** A fresh interaction's sign-in page, as a browser gets it. */
  async function signInPage(jar = new CookieJar()): Promise<{ jar: CookieJar; page: Hop }> {
    const client = await relyingParty(server, tenant);
    const verifier = generators.codeVerifier();
    const par = await client.pushedAuthorizationRequest({ scope: 'openid email', code_challenge: generators.codeChallenge(verifier), code_challenge_method: 'S256' });
    const page = await follow(jar, await browse(jar, client.authorizationUrl({ request_uri: par.request_uri })), TEST_REDIRECT_URI);
    expect(page.html).toContain('name="password"');
    return { jar, page };
  }

  const alertOf = (html: string) => /role="alert"[\s\S]*?<a[^>]*>([^<]+)<\/a>/.exec(html)?.[1] ?? null;

  test('after 5 failures a password alone no longer signs in: every attempt gets the code page, and the right password with the mailed code signs in', async () => {
    await createUser(server, testEmail('target'));
    // One sign-in page, posted again and again as a guesser would (fewer requests against the rate limit).
    const guess = await signInPage();
    for (let i = 0; i < 5; i++) {
      expect((await browse(guess.jar, formAction(guess.page), { email: testEmail('target'), password: `guess ${i} wrong` })).status).toBe(400);
    }
    const mailCount = async () => ((await cli(server.env, ['mail', 'list', '--to', testEmail('target'), '--json'])).json as { messages: { text: string }[] }).messages;
    // A further wrong guess gets the same code page as the right password, and no code is made.
    const guessed = await browse(guess.jar, formAction(guess.page), { email: testEmail('target'), password: 'guess 6 wrong' });
    expect(guessed.status).toBe(200);
    expect(guessed.html).toContain('name="code"');
    expect(guessed.html).toMatch(/too many sign-in attempts/);
    expect(await mailCount()).toHaveLength(0);
    // The owner is not locked out: the right password mails a code, and the code signs in.
    const { jar, page } = await signInPage();
    const codePage = await browse(jar, formAction(page), { email: testEmail('target'), password: 'correct horse battery' });
    expect(codePage.status).toBe(200);
    expect(codePage.html).toMatch(/too many sign-in attempts/);
    const messages = await mailCount();
    expect(messages).toHaveLength(1);
    const code = /\b(\d{6})\b/.exec(messages[0].text)![1];
    const signedIn = await browse(jar, formAction(codePage), { email: testEmail('target'), code });
    expect(signedIn.status).toBe(303);
    // Another account from the same address is not affected.
    const other = await signInPage();
    const ok = await browse(other.jar, formAction(other.page), { email: testEmail('known'), password: 'correct horse battery' });
    expect(ok.status).toBe(303);
  });

  test('sign-up refuses short, common and NUL-holding passwords in words (en-US and de-DE), and accepts 8 characters', async () => {
    // One sign-up page per language, posted again after each refusal (fewer requests against the rate limit).
    const signUpForm = async (uiLocales?: string) => {
      const jar = new CookieJar();
      const client = await relyingParty(server, tenant);
      const verifier = generators.codeVerifier();
      const par = await client.pushedAuthorizationRequest({ scope: 'openid email', code_challenge: generators.codeChallenge(verifier), code_challenge_method: 'S256', ...(uiLocales ? { ui_locales: uiLocales } : {}) });
      const page = await follow(jar, await browse(jar, client.authorizationUrl({ request_uri: par.request_uri })), TEST_REDIRECT_URI);
      const form = await browse(jar, new URL(/href="([^"]+\/signup)"/.exec(page.html)![1], page.url).href);
      return (password: string) => browse(jar, formAction(form), { email: testEmail(`pw${Math.random().toString(36).slice(2, 8)}`), password });
    };
    const english = await signUpForm();
    const signUpWith = (password: string, locale?: 'de-DE') => (locale ? signUpForm(locale).then((post) => post(password)) : english(password));
    const short = await signUpWith('7 chars');
    expect(short.status).toBe(400);
    expect(alertOf(short.html)).toMatch(/password of 8 to 200 characters/);
    for (const common of ['password1', 'Password123', 'iloveyou', 'qwertyuiop']) {
      const refused = await signUpWith(common);
      expect(refused.status).toBe(400);
      expect(alertOf(refused.html)).toMatch(/list of common or breached passwords/);
    }
    const german = await signUpWith('password1', 'de-DE');
    expect(german.status).toBe(400);
    expect(alertOf(german.html)).toMatch(/Liste häufiger oder gestohlener Passwörter/);
    // (A form cannot carry a lone surrogate: URL encoding turns it into U+FFFD. NUL it can.)
    const nul = await signUpWith('nul \u0000 in it');
    expect(nul.status).toBe(400);
    expect(alertOf(nul.html)).toMatch(/character that cannot be used/);
    // No composition rules: eight lower-case letters that are not on the list are fine.
    const fine = await signUpWith('tuvzebra');
    expect(fine.status).toBe(200);
    expect(fine.html).toContain('name="code"');
  });

  test('signing up with a known email shows the same code page and mails the owner a notice, not a code', async () => {
    const { jar, page } = await signInPage();
    const signUp = await browse(jar, new URL(/href="([^"]+\/signup)"/.exec(page.html)![1], page.url).href);
    const done = await browse(jar, formAction(signUp), { email: testEmail('known'), password: 'another password 1' });
    expect(done.status).toBe(200);
    expect(done.html).toContain('name="code"');
    const mail = await cli(server.env, ['mail', 'list', '--to', testEmail('known'), '--json']);
    const messages = (mail.json as { messages: { subject: string; text: string }[] }).messages;
    expect(messages[0].subject).toMatch(/tried to create an account/);
    expect(messages[0].text).not.toMatch(/\b\d{6}\b/);
  });

  test('signing up again with an unverified account’s email never changes that account: its own password still signs in, the new one does not', async () => {
    const signUpWith = async (password: string) => {
      const { jar, page } = await signInPage();
      const signUp = await browse(jar, new URL(/href="([^"]+\/signup)"/.exec(page.html)![1], page.url).href);
      return browse(jar, formAction(signUp), { email: testEmail('unverified'), password });
    };
    expect((await signUpWith('the owner’s password')).html).toContain('name="code"');
    const again = await signUpWith('an attacker’s password');
    expect(again.status).toBe(200);
    expect(again.html).toContain('name="code"');
    const mail = await cli(server.env, ['mail', 'list', '--to', testEmail('unverified'), '--json']);
    expect((mail.json as { messages: { subject: string }[] }).messages[0].subject).toMatch(/tried to create an account/);
    const attacker = await signInPage();
    const refused = await browse(attacker.jar, formAction(attacker.page), { email: testEmail('unverified'), password: 'an attacker’s password' });
    expect(refused.status).toBe(400);
    const owner = await signInPage();
    const accepted = await browse(owner.jar, formAction(owner.page), { email: testEmail('unverified'), password: 'the owner’s password' });
    expect(accepted.status).toBe(200);
    expect(accepted.html).toContain('name="code"'); // unverified: the password is right, a code confirms the address
  });

  test('four sign-ups with one email at once make one account, and all four get the same answer', async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4].map(async (i) => {
        const { jar, page } = await signInPage();
        const signUp = await browse(jar, new URL(/href="([^"]+\/signup)"/.exec(page.html)![1], page.url).href);
        return browse(jar, formAction(signUp), { email: testEmail('race'), password: `race password ${i}` });
      }),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const a of answers) expect(a.html).toContain('name="code"');
    const mail = await cli(server.env, ['mail', 'list', '--to', testEmail('race'), '--json']);
    const messages = (mail.json as { messages: { subject: string; text: string }[] }).messages;
    expect(messages.filter((m) => /\b\d{6}\b/.test(m.text))).toHaveLength(1); // one account, one code; the others a notice
    expect(messages).toHaveLength(4);
  });

  test('a wrong code is refused; an expired code is refused even when right', async () => {
    const { jar, page } = await signInPage();
    const signUp = await browse(jar, new URL(/href="([^"]+\/signup)"/.exec(page.html)![1], page.url).href);
    const codePage = await browse(jar, formAction(signUp), { email: testEmail('slow'), password: 'a fine password' });
    const mail = await cli(server.env, ['mail', 'list', '--to', testEmail('slow'), '--json']);
    const code = /\b(\d{6})\b/.exec((mail.json as { messages: { text: string }[] }).messages[0].text)![1];
    const wrong = await browse(jar, formAction(codePage), { email: testEmail('slow'), code: code === '123456' ? '654321' : '123456' });
    expect(wrong.status).toBe(400);
    expect(alertOf(wrong.html)).toMatch(/code is not right or has expired/);
    // A code lives EMAIL_CODE_TTL_SECONDS (600 s). The code is moved past its expiry instead of waited out: the server
    // compares it with the database's clock, so the verdict does not depend on how fast a loaded machine gets here.
    // The address's code, found by the address's lookup hash its mail carries (a shared database holds other files' codes).
    const mailId = (mail.json as { messages: { id: string }[] }).messages[0].id;
    const [issued] = (await db.query(`SELECT c.id, c.expires_at FROM email_codes c JOIN mail_messages m ON m.to_hash = c.email_hash WHERE m.id = $1 ORDER BY c.created_at DESC LIMIT 1`, [mailId])).rows;
    expect(new Date(issued.expires_at).getTime()).toBeGreaterThan(Date.now()); // not yet expired by itself: the refusal below is the expiry's
    await db.query(`UPDATE email_codes SET expires_at = now() - interval '1 second' WHERE id = $1`, [issued.id]);
    const late = await browse(jar, formAction(codePage), { email: testEmail('slow'), code });
    expect(late.status).toBe(400);
    expect(alertOf(late.html)).toMatch(/code is not right or has expired/);
  });

  // Last: its eight failed sign-ins from this address would count toward the throttle of the tests after it.
  test('an unknown email and a wrong password get the same page, message and status, for the same work', async () => {
    const cpu: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
    const pages: Record<string, Hop> = {};
    for (let i = 0; i < 4; i++) {
      for (const who of ['known', 'unknown'] as const) {
        const { jar, page } = await signInPage();
        const before = cpuMs(server.proc.pid!);
        pages[who] = await browse(jar, formAction(page), { email: testEmail(who), password: `wrong password ${i}` });
        cpu[who].push(cpuMs(server.proc.pid!) - before);
      }
    }
    expect(pages.known.status).toBe(400);
    expect(pages.unknown.status).toBe(400);
    expect(alertOf(pages.known.html)).toBe(alertOf(pages.unknown.html));
    expect(alertOf(pages.known.html)).toMatch(/email or password is not right/);
    // Both pay one scrypt: the server's CPU for each answer (not the wall clock, which a loaded machine stretches: CI saw a
    // median ratio of 3.2) stays within a factor of 2 between the two; a skipped scrypt would cost several times less.
    // The least of four, which leaves out a background job's tick landing in one of them. Four, not more: the address's
    // failures count toward the next test's throttle.
    const ratio = Math.min(...cpu.known) / Math.min(...cpu.unknown);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});
