import { randomInt } from 'node:crypto';
import { generators } from 'openid-client';
import { browse, CookieJar, createOidcTenant, createUser, follow, formAction, relyingParty, startOidcServer, TEST_REDIRECT_URI, type Hop, type OidcTenant, testEmail } from '../helpers/oidc-login';
import { cli, type TestServer } from '../helpers/test-server';

/**
 * The password sign-in's failure limit under concurrent guesses (issue 40, the class of finding 6;
 * docs/accounts-and-oidc.md "Sign-in limits", docs/security.md finding 6): each guess is counted and
 * recorded in one step per bucket before the password is checked, so no more than
 * FAILURES_PER_ACCOUNT guesses of one account are ever answered as a plain refusal in a window.
 */
describe('sign-in failure limit under concurrent guesses', () => {
  let server: TestServer;
  let tenant: OidcTenant;
  // Each guess from an address of its own, unique to this run: the per-account limit alone is under
  // test, and a PostgreSQL server shared with other files (and earlier runs) keeps 127.0.0.1's failures.
  const net = `10.${randomInt(0, 256)}.${randomInt(0, 256)}`;
  const from = (i: number) => ({ 'x-forwarded-for': `${net}.${i + 1}` });

  beforeAll(async () => {
    server = await startOidcServer({ TRUST_PROXY: 'loopback', RATE_LIMIT_ENABLED: 'false' });
    tenant = await createOidcTenant(server, 'Sign-in Race');
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function signInPage(): Promise<{ jar: CookieJar; page: Hop }> {
    const jar = new CookieJar();
    const client = await relyingParty(server, tenant);
    const verifier = generators.codeVerifier();
    const par = await client.pushedAuthorizationRequest({ scope: 'openid email', code_challenge: generators.codeChallenge(verifier), code_challenge_method: 'S256' });
    const page = await follow(jar, await browse(jar, client.authorizationUrl({ request_uri: par.request_uri })), TEST_REDIRECT_URI);
    expect(page.html).toContain('name="password"');
    return { jar, page };
  }
  const mailTo = async (email: string) => ((await cli(server.env, ['mail', 'list', '--to', email, '--json'])).json as { messages: { text: string }[] }).messages;
  /** A plain refusal is the sign-in page again (400); past the limit every attempt gets the code page (200) that says so. */
  const answerOf = (hop: Hop): 'refused' | 'code_required' | 'other' => {
    if (hop.status === 400 && hop.html.includes('name="password"') && /email or password is not right/.test(hop.html)) return 'refused';
    if (hop.status === 200 && hop.html.includes('name="code"') && /too many sign-in attempts/.test(hop.html)) return 'code_required';
    return 'other';
  };

  test('of 40 concurrent wrong passwords exactly 5 are refused and 35 get the code page; then the right password alone gets the code page and a mailed code', async () => {
    const email = testEmail('raced');
    await createUser(server, email);
    // One sign-in page posted 40 times at once, as a guesser would.
    const guess = await signInPage();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => browse(guess.jar, formAction(guess.page), { email, password: `guess ${i} wrong` }, from(i))));
    const tally = { refused: 0, code_required: 0, other: 0 };
    for (const a of answers) tally[answerOf(a)]++;
    expect(tally).toEqual({ refused: 5, code_required: 35, other: 0 });
    // No guess made a code.
    expect(await mailTo(email)).toHaveLength(0);

    // The owner is not locked out, but a password alone no longer signs in: the code page, and a code by mail.
    const { jar, page } = await signInPage();
    const codePage = await browse(jar, formAction(page), { email, password: 'correct horse battery' }, from(100));
    expect(answerOf(codePage)).toBe('code_required');
    const messages = await mailTo(email);
    expect(messages).toHaveLength(1);
    const code = /\b(\d{6})\b/.exec(messages[0].text)![1];
    const signedIn = await browse(jar, formAction(codePage), { email, code }, from(100));
    expect(signedIn.status).toBe(303);
  });
});
