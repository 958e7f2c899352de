import type { Client } from 'pg';
import { generators } from 'openid-client';
import { signedInUser } from '../helpers/data-rights-fixtures';
import { dbClient } from '../helpers/hosted-client';
import { browse, CookieJar, createOidcTenant, follow, formAction, relyingParty, startOidcServer, TEST_REDIRECT_URI, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { cli, eventually, http, type TestServer } from '../helpers/test-server';

const DAY = 86_400_000;

/**
 * The mail outbox (docs/accounts-and-oidc.md, "Mail"): nothing readable in its table, gone with the
 * user's hard purge, nothing sent to a deleted account, and dropped after 30 days.
 */
describe('mail outbox', () => {
  let server: TestServer;
  let db: Client;
  let tenant: OidcTenant;

  beforeAll(async () => {
    server = await startOidcServer();
    db = await dbClient(server);
    tenant = await createOidcTenant(server);
  });
  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });

  async function signUp(email: string, password = 'a fine long password'): Promise<void> {
    const client = await relyingParty(server, tenant);
    const jar = new CookieJar();
    const par = await client.pushedAuthorizationRequest({ scope: 'openid email', code_challenge: generators.codeChallenge(generators.codeVerifier()), code_challenge_method: 'S256' });
    const page = await follow(jar, await browse(jar, client.authorizationUrl({ request_uri: par.request_uri })), TEST_REDIRECT_URI);
    const form = await browse(jar, new URL(/href="([^"]+\/signup)"/.exec(page.html)![1], page.url).href);
    expect((await browse(jar, formAction(form), { email, password })).html).toContain('name="code"');
  }
  const mailTo = async (email: string) => ((await cli(server.env, ['mail', 'list', '--to', email, '--json'])).json as { messages: { subject: string; text: string }[] }).messages;

  test('a code mail keeps neither code nor subject readable in the table; `mail list` still shows both', async () => {
    await signUp(testEmail('sealed'));
    const [mail] = await mailTo(testEmail('sealed'));
    const code = /\b(\d{6})\b/.exec(mail.text)![1];
    expect(mail.subject).toContain(code);
    const rows = await db.query(`SELECT * FROM mail_messages`);
    const table = JSON.stringify(rows.rows);
    expect(table).not.toContain(code);
    expect(table).not.toContain('Your code');
  });

  test('the hard purge deletes the user’s mail, and no mail goes to a deleted account', async () => {
    const email = testEmail('leaving');
    const user = await signedInUser(server, tenant, { email });
    await signUp(email); // the owner gets a notice: someone tried to sign up with their address
    expect(await mailTo(email)).toHaveLength(1);
    const kept = await db.query(`SELECT count(*)::int AS n FROM mail_messages m JOIN users u ON u.email_hash = m.to_hash WHERE u.id = $1`, [user.userId]);
    expect(kept.rows[0].n).toBe(1);

    expect((await http(server, 'POST', '/v1/me/delete', { key: user.accessToken })).status).toBe(202);
    await signUp(email); // same answer as ever, but nothing is sent to the deleted account
    expect(await mailTo(email)).toHaveLength(1);

    const due = await cli(server.env, ['dsr', 'purge-due', '--as-of', new Date(Date.now() + 15 * DAY).toISOString(), '--json']);
    expect(due.code).toBe(0);
    await eventually(async () => ((await mailTo(email)).length === 0 ? true : undefined));
  });

  test('mail older than 30 days is dropped by the sweep; newer mail stays', async () => {
    const email = testEmail('old');
    await signUp(email);
    const [{ id }] = (await db.query(`SELECT id FROM mail_messages ORDER BY created_at DESC LIMIT 1`)).rows;
    await db.query(
      `INSERT INTO mail_messages (id, to_hash, to_sealed, subject_sealed, text_sealed, transport, created_at)
       SELECT id || '_old', to_hash, to_sealed, subject_sealed, text_sealed, transport, now() - interval '31 days' FROM mail_messages WHERE id = $1`,
      [id],
    );
    expect(await mailTo(email)).toHaveLength(2);
    // The sweep queued now, as its daily cron would (MAIL_SWEEP_CRON; pg-boss files cron jobs a minute apart at best), and run by the server's worker.
    const swept = await cli(server.env, ['mail', 'sweep', '--json']);
    expect(swept.json).toEqual({ enqueued: 'mail-sweep' });
    await eventually(async () => ((await mailTo(email)).length === 1 ? true : undefined));
    const left = await db.query(`SELECT id FROM mail_messages WHERE id = ANY($1)`, [[id, `${id}_old`]]);
    expect(left.rows).toEqual([{ id }]);
  });
});
