import type { Client } from 'pg';
import { passInteraction } from '../../bench/oidc-flow';
import { createConsoleMember, type ConsoleLogin } from '../helpers/console-login';
import { boundSession, signedInUser, type SignedInUser } from '../helpers/data-rights-fixtures';
import { dbClient } from '../helpers/hosted-client';
import { browse, CookieJar, createOidcTenant, startOidcServer, testEmail, type OidcTenant } from '../helpers/oidc-login';
import { cli, eventually, http, type TestServer } from '../helpers/test-server';

type Mail = { subject: string; text: string };

/**
 * A user's review request (GDPR Art. 22, D15) reaches the tenant whose decision it is: a case in its
 * console queue with the 7-business-day deadline whatever the session's status, a mail to its owners
 * and admins; the tenant's decision settles it, and the user gets the outcome by mail and in the
 * portal. And a finished export is mailed to its user (docs/data-rights.md, "Mail").
 */
describe('a review request reaches the tenant', () => {
  let server: TestServer;
  let db: Client;
  let acme: OidcTenant;
  let owner: ConsoleLogin;
  let admin: ConsoleLogin;
  let reviewer: ConsoleLogin;
  let ana: SignedInUser;
  const anaEmail = testEmail('ana.review');

  const mailTo = async (email: string): Promise<Mail[]> => ((await cli(server.env, ['mail', 'list', '--to', email, '--json'])).json as { messages: Mail[] }).messages;
  const get = (login: Pick<ConsoleLogin, 'cookie'>, path: string) => fetch(`${server.url}${path}`, { headers: { cookie: login.cookie }, redirect: 'manual' });
  const post = (login: Pick<ConsoleLogin, 'cookie'>, path: string, form: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { cookie: login.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form), redirect: 'manual' });
  const tokenIn = (html: string, action: string): string => /name="form_token" value="([^"]+)"/.exec(html.slice(html.indexOf(`action="${action}"`)))![1];
  const statusOf = async (id: string) => (await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key })).body.status as string;

  beforeAll(async () => {
    server = await startOidcServer({ RATE_LIMIT_ENABLED: 'false' });
    db = await dbClient(server);
    acme = await createOidcTenant(server, 'acme');
    owner = await createConsoleMember(server, acme.tenant_id, 'owner');
    admin = await createConsoleMember(server, acme.tenant_id, 'admin');
    reviewer = await createConsoleMember(server, acme.tenant_id, 'reviewer');
    ana = await signedInUser(server, acme, { email: anaEmail });
  });

  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });

  it('puts a decided session in the console queue with its deadline, mails owners and admins; the tenant reverses it and the user learns the outcome', async () => {
    const id = await boundSession(server, db, acme, ana, { metadata: { test_outcome: 'approved' } });
    await eventually(async () => ((await statusOf(id)) === 'success' ? true : undefined), 60_000);
    const asked = await http(server, 'POST', `/v1/me/verifications/${id}/review`, { key: ana.accessToken, json: { reason: 'The decision used the wrong document' } });
    expect(asked.status).toBe(202);
    const expectedBy = new Date(asked.body.expected_by);

    // The case waits in the tenant's queue, a `success` session, with the request's deadline.
    const queue = await (await get(reviewer, '/console/queue')).text();
    const card = queue.slice(queue.indexOf(`data-session-id="${id}"`));
    expect(card.length).toBeGreaterThan(0);
    expect(card.slice(0, card.indexOf('</li>'))).toMatch(/success/);
    const filtered = await (await get(reviewer, '/console/queue?reason=review_request')).text();
    expect(filtered).toContain(`data-session-id="${id}"`);
    const due = await db.query(`SELECT j.expected_by FROM review_cases rc JOIN dsr_jobs j ON j.id = rc.dsr_job_id WHERE rc.session_id = $1`, [id]);
    expect(new Date(due.rows[0].expected_by).toISOString()).toBe(expectedBy.toISOString());

    // Owners and admins are told, with the case's link and the deadline; a reviewer is not mailed.
    for (const login of [owner, admin]) {
      const [mail] = await eventually(async () => {
        const found = (await mailTo(login.email)).filter((m) => m.subject === `Review requested: verification ${id}`);
        return found.length ? found : undefined;
      }, 60_000);
      expect(mail.text).toContain(`/console/cases/${id}`);
      expect(mail.text).toContain(expectedBy.toISOString().slice(0, 10));
      expect(mail.text).not.toContain('wrong document'); // the user's words stay in the case
    }
    expect((await mailTo(reviewer.email)).filter((m) => m.subject.startsWith('Review requested'))).toEqual([]);

    // The tenant's reviewer reverses the decision in the console: the request is settled.
    const page = await (await get(reviewer, `/console/cases/${id}`)).text();
    const decided = await post(reviewer, `/console/cases/${id}/decisions`, { form_token: tokenIn(page, `/console/cases/${id}/decisions`), decision: 'reverse', reason: 'The document was not the one we expected' });
    expect(decided.status).toBe(303);
    expect(await statusOf(id)).toBe('failed');
    const cases = await http(server, 'GET', `/v1/me/verifications/${id}/review`, { key: ana.accessToken });
    expect(cases.body.data).toEqual([expect.objectContaining({ status: 'decided', decision: 'declined' })]);
    expect((await (await get(reviewer, '/console/queue')).text()).includes(`data-session-id="${id}"`)).toBe(false);

    // The outcome reaches the user by mail, and in the account portal.
    const [outcome] = await eventually(async () => {
      const found = (await mailTo(anaEmail)).filter((m) => m.subject.startsWith('The outcome of your review request'));
      return found.length ? found : undefined;
    }, 60_000);
    expect(outcome.text).toContain('now declined');
    expect(outcome.text).not.toContain('The document was not the one we expected'); // the reviewer's reason stays with the tenant
    const jar = new CookieJar();
    const first = await browse(jar, `${server.url}/account`);
    const back = await browse(jar, await passInteraction(jar, first.location!, `${server.url}/account/callback`, anaEmail, 'correct horse battery'));
    const portal = await browse(jar, back.location!);
    expect(portal.html).toContain('Changed: declined');
  });

  it('the tenant may keep the decision from the case page: the request is settled upheld, the session unchanged, the user told', async () => {
    const id = await boundSession(server, db, acme, ana, { metadata: { test_outcome: 'declined' } });
    await eventually(async () => ((await statusOf(id)) === 'failed' ? true : undefined), 60_000);
    expect((await http(server, 'POST', `/v1/me/verifications/${id}/review`, { key: ana.accessToken, json: { reason: 'I am who I say I am' } })).status).toBe(202);
    const page = await (await get(reviewer, `/console/cases/${id}`)).text();
    expect(page).toContain('The user asks for a human review');
    expect(page).toContain('I am who I say I am');
    const tooShort = await post(reviewer, `/console/cases/${id}/review-request`, { form_token: tokenIn(page, `/console/cases/${id}/review-request`), reason: 'x' });
    expect(tooShort.status).toBe(400);
    const kept = await post(reviewer, `/console/cases/${id}/review-request`, { form_token: tokenIn(page, `/console/cases/${id}/review-request`), reason: 'The document photo is not the holder' });
    expect(kept.status).toBe(303);
    expect(await statusOf(id)).toBe('failed');
    const cases = await http(server, 'GET', `/v1/me/verifications/${id}/review`, { key: ana.accessToken });
    expect(cases.body.data).toEqual([expect.objectContaining({ status: 'decided', decision: 'upheld' })]);
    await eventually(async () => ((await mailTo(anaEmail)).some((m) => m.text.includes('The decision stands')) ? true : undefined), 60_000);
    const audit = await db.query(`SELECT detail FROM audit_log WHERE subject_id = $1 AND action = 'session.review_upheld'`, [id]);
    expect(audit.rows).toEqual([{ detail: expect.objectContaining({ member_id: reviewer.memberId }) }]);
  });

  it('mails the user when their export is ready to download', async () => {
    const r = await http(server, 'POST', '/v1/me/data-export', { key: ana.accessToken });
    expect(r.status).toBe(202);
    const [mail] = await eventually(async () => {
      const found = (await mailTo(anaEmail)).filter((m) => m.subject === 'Your data export is ready');
      return found.length ? found : undefined;
    }, 120_000);
    expect(mail.text).toContain(`/account/exports/${r.body.id}`);
    const job = await http(server, 'GET', '/v1/me/requests', { key: ana.accessToken });
    expect(job.body.data.find((j: { id: string }) => j.id === r.body.id)).toMatchObject({ status: 'completed' });
  });
});
