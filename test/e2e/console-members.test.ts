import { browse, CookieJar, formAction, passInteraction } from '../../bench/oidc-flow';
import { consoleSignIn, createConsoleMember, invitationLinkFor, totpCode, type ConsoleLogin } from '../helpers/console-login';
import { createUser, startOidcServer, testEmail } from '../helpers/oidc-login';
import { cli, createTenant, graphql, type Tenant, type TestServer } from '../helpers/test-server';
import type { Client } from 'pg';
import { dbClient, sha256 } from '../helpers/hosted-client';

/**
 * Console members (docs/decisions.md D16, docs/console.md) over HTTP against the built server: invitations
 * by the CLI and the Members page, single use and expiry, roles and their refusals, the second factor,
 * the tenant boundary, and the sign-in's idle and absolute limits (rows moved in time: no test waits a limit out).
 */

describe('console members', () => {
  let server: TestServer;
  let acme: Tenant;
  let globex: Tenant;
  let owner: ConsoleLogin;

  beforeAll(async () => {
    server = await startOidcServer({ RATE_LIMIT_ENABLED: 'false' });
    [acme, globex] = [await createTenant(server, 'Acme Shop'), await createTenant(server, 'Globex Bank')];
    owner = await createConsoleMember(server, acme.tenant_id, 'owner');
  });
  afterAll(async () => {
    await server?.stop();
  });

  const get = (login: Pick<ConsoleLogin, 'cookie'>, path: string) => fetch(`${server.url}${path}`, { headers: { cookie: login.cookie }, redirect: 'manual' });
  /** A form of the page at `path` posted as a browser would: its own form token, plus `fields`. */
  async function postForm(login: Pick<ConsoleLogin, 'cookie'>, path: string, action: string, fields: Record<string, string>): Promise<Response> {
    const html = await (await get(login, path)).text();
    const form = html.slice(html.indexOf(`action="${action}"`));
    const token = /name="form_token" value="([^"]+)"/.exec(form)?.[1];
    if (!token) throw new Error(`no form ${action} on ${path}`);
    return fetch(`${server.url}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: login.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ form_token: token, ...fields }).toString(),
    });
  }
  const problemCode = (html: string) => /data-code="([a-z_]+)"/.exec(html)?.[1];
  async function auditActions(tenant: Tenant, subjectId: string): Promise<{ action: string; detail: Record<string, unknown> }[]> {
    const r = await graphql(server, 'query($s: ID) { auditLog(subjectId: $s, first: 50) { action detail } }', { s: subjectId }, tenant.live_api_key);
    expect(r.body.errors).toBeUndefined();
    return r.body.data.auditLog;
  }

  it('signs an owner in with a TOTP enrolment, shows ten recovery codes once, and the Members page with the tenant name', async () => {
    expect(owner.totpSecret).toMatch(/^[A-Z2-7]+=*$/);
    expect(owner.recoveryCodes).toHaveLength(10);
    const r = await get(owner, '/console/members');
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain('Acme Shop');
    expect(html).toContain(owner.email);
    expect(html).toContain('Invite a member');
    const again = await (await get(owner, '/console/second-factor/recovery-codes')).text();
    expect(again).toContain('10 are left');
    expect(again).not.toMatch(/<li>[a-z0-9]{5}-[a-z0-9]{5}<\/li>/);
  });

  it('accepts a CLI invitation once, as the invited account, and audits it with the member id', async () => {
    const email = testEmail('invited.reviewer');
    await createUser(server, email);
    const invited = await cli(server.env, ['member', 'invite', '--tenant', acme.tenant_id, '--email', email, '--role', 'reviewer', '--json']);
    expect(invited.code).toBe(0);
    const link = await invitationLinkFor(server, email);
    // The mail names the tenant and the role; the stored invitation names neither the token nor the address in clear.
    const page = await browse(new CookieJar(), link);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Join Acme Shop');
    expect(page.html).toContain('Reviewer');

    // Another account cannot take the link, and trying does not spend it.
    const stranger = testEmail('stranger');
    await createUser(server, stranger);
    const jar = new CookieJar();
    const accept = await browse(jar, formAction(await browse(jar, link)), {});
    const refused = await browse(jar, await passInteraction(jar, accept.location!, `${server.url}/console/callback`, stranger, 'correct horse battery'));
    expect(refused.status).toBe(403);
    expect(problemCode(refused.html)).toBe('wrong_account');

    const reviewer = await consoleSignIn(server, email, { invitationUrl: link });
    expect(reviewer.recoveryCodes).toHaveLength(10);
    const members = await (await get(reviewer, '/console/members')).text();
    expect(members).toContain(email);
    expect(members).not.toContain('Invite a member'); // a reviewer reads the list, changes nothing

    const second = await browse(new CookieJar(), link);
    expect(second.status).toBe(403);
    expect(problemCode(second.html)).toBe('link_invalid');

    const listed = await cli(server.env, ['member', 'list', '--tenant', acme.tenant_id, '--json']);
    const memberId = (listed.json!.members as { member_id: string; email: string; role: string }[]).find((x) => x.email === email)!;
    expect(memberId.role).toBe('reviewer');
    const actions = (await auditActions(acme, memberId.member_id)).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['member.added', 'member.second_factor_enrolled']));
    const invitationId = String(invited.json!.invitation_id);
    const invitationAudit = await auditActions(acme, invitationId);
    expect(invitationAudit.map((e) => e.action)).toEqual(expect.arrayContaining(['member.invited', 'member.invitation_accepted']));
    expect(invitationAudit.find((e) => e.action === 'member.invitation_accepted')!.detail.member_id).toBe(memberId.member_id);
    // The audit detail holds ids and roles, never the address.
    expect(JSON.stringify(invitationAudit)).not.toContain(email);
  });

  it('lets an admin invite from the Members page, but not an owner, and keeps the last owner', async () => {
    const admin = await createConsoleMember(server, acme.tenant_id, 'admin');
    const email = testEmail('page.invite');
    const r = await postForm(admin, '/console/members', '/console/members/invite', { email, role: 'viewer' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/console/members?done=invited');
    expect(await invitationLinkFor(server, email)).toMatch(/\/console\/invitations\/[A-Za-z0-9]{32}$/);
    const html = await (await get(admin, '/console/members')).text();
    expect(html).toContain(email); // pending

    const asOwner = await postForm(admin, '/console/members', '/console/members/invite', { email: testEmail('would.be.owner'), role: 'owner' });
    expect(asOwner.status).toBe(403);
    expect(await asOwner.text()).toContain('Only an owner can make, change or remove an owner.');

    const bad = await postForm(admin, '/console/members', '/console/members/invite', { email: 'not an address', role: 'viewer' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Enter a valid email address.');

    // The owner's row has no forms for an admin; posted anyway, the service refuses.
    const ownerId = ((await cli(server.env, ['member', 'list', '--tenant', acme.tenant_id, '--json'])).json!.members as { member_id: string; role: string }[]).find((x) => x.role === 'owner')!.member_id;
    const token = /action="\/console\/members\/invite"[^]*?name="form_token" value="([^"]+)"/.exec(await (await get(admin, '/console/members')).text())![1];
    const post = (path: string, fields: Record<string, string>) =>
      fetch(`${server.url}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ form_token: token, ...fields }).toString() });
    expect((await post(`/console/members/${ownerId}/role`, { role: 'viewer' })).status).toBe(403);
    expect((await post(`/console/members/${ownerId}/remove`, {})).status).toBe(403);

    // The owner cannot step down while alone: a tenant keeps an owner.
    const ownerToken = /action="\/console\/members\/invite"[^]*?name="form_token" value="([^"]+)"/.exec(await (await get(owner, '/console/members')).text())![1];
    const self = await fetch(`${server.url}/console/members/${ownerId}/role`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: owner.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ form_token: ownerToken, role: 'admin' }).toString(),
    });
    expect(self.status).toBe(409);
    expect(await self.text()).toContain('A tenant keeps at least one owner');
    const removeSelf = await fetch(`${server.url}/console/members/${ownerId}/remove`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: owner.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ form_token: ownerToken }).toString(),
    });
    expect(removeSelf.status).toBe(409);
  }, 90_000);

  it('refuses a viewer the admin forms with a page and a 403, and ends a removed member\'s sign-in at once', async () => {
    const viewer = await createConsoleMember(server, acme.tenant_id, 'viewer');
    expect(viewer.totpSecret).toBeNull(); // a viewer sees no evidence: no second factor asked
    const page = await get(viewer, '/console/members');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain('Invite a member');
    expect(html).not.toContain('Change role');
    const ownerPage = await (await get(owner, '/console/members')).text();
    const token = /action="\/console\/members\/invite"[^]*?name="form_token" value="([^"]+)"/.exec(ownerPage)![1];
    const tried = await fetch(`${server.url}/console/members/invite`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: viewer.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ form_token: token, email: testEmail('by.viewer'), role: 'viewer' }).toString(),
    });
    expect(tried.status).toBe(403);
    expect(problemCode(await tried.text())).toBe('role_too_low');

    const viewerId = /action="\/console\/members\/(mbr_[A-Za-z0-9]+)\/remove"/.exec(ownerPage.slice(ownerPage.indexOf(viewer.email)))![1];
    const removed = await postForm(owner, '/console/members', `/console/members/${viewerId}/remove`, {});
    expect(removed.status).toBe(303);
    const after = await get(viewer, '/console/members');
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toContain('/v1/oidc/auth?'); // signed out: back to the provider's sign-in
    expect((await auditActions(acme, viewerId)).map((e) => e.action)).toContain('member.removed');
  }, 90_000);

  it('keeps a member of tenant A inside A: no switch to B, and B\'s members never shown', async () => {
    const globexOwner = await createConsoleMember(server, globex.tenant_id, 'owner');
    const acmeHtml = await (await get(owner, '/console/members')).text();
    expect(acmeHtml).not.toContain(globexOwner.email);
    expect(acmeHtml).not.toContain('Globex Bank');
    // Choosing B's console with A's sign-in changes nothing.
    const token = /name="form_token" value="([^"]+)"/.exec(await (await get(owner, '/console/tenants')).text())![1];
    const tried = await fetch(`${server.url}/console/tenants`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: owner.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ form_token: token, tenant_id: globex.tenant_id, return: '/console/members' }).toString(),
    });
    expect(tried.headers.get('location')).toBe('/console/tenants');
    const still = await (await get(owner, '/console/members')).text();
    expect(still).toContain('Acme Shop');
    expect(still).not.toContain(globexOwner.email);
    const globexHtml = await (await get(globexOwner, '/console/members')).text();
    expect(globexHtml).toContain('Globex Bank');
    expect(globexHtml).not.toContain(owner.email);
  }, 90_000);

  it('lets a member of two tenants pick one, and switch with the same second factor', async () => {
    const email = testEmail('two.tenants');
    await createUser(server, email);
    for (const t of [acme, globex]) expect((await cli(server.env, ['member', 'add', '--tenant', t.tenant_id, '--email', email, '--role', 'reviewer', '--json'])).code).toBe(0);
    // The picker first (no tenant yet), then the second factor's enrolment, in the tenant chosen.
    const login = await consoleSignIn(server, email, { tenantId: acme.tenant_id });
    expect(login.landing.html).toContain('Save your recovery codes');
    expect(login.landing.html).toContain('Acme Shop · Review console');
    const picker = await (await get(login, '/console/tenants')).text();
    expect(picker).toContain('Open the console of Acme Shop');
    expect(picker).toContain('Open the console of Globex Bank');
    const main = picker.slice(picker.indexOf('Open the console of Globex Bank') - 800);
    const token = /name="form_token" value="([^"]+)"/.exec(main)![1];
    const chose = await fetch(`${server.url}/console/tenants`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: login.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ form_token: token, tenant_id: globex.tenant_id, return: '/console/members' }).toString(),
    });
    expect(chose.headers.get('location')).toBe('/console/members');
    const page = await get(login, '/console/members');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Globex Bank · Review console');
    expect(html).toContain('Switch tenant');
  }, 90_000);

  it('asks a reviewer for the second factor at each sign-in, takes a recovery code once, and limits wrong codes', async () => {
    const reviewer = await createConsoleMember(server, acme.tenant_id, 'reviewer');
    // A new sign-in without the factor: every page sends it to the second factor first.
    const jar = new CookieJar();
    const start = await browse(jar, `${server.url}/console/sign-in?return=/console/members`);
    const landed = await browse(jar, await passInteraction(jar, start.location!, `${server.url}/console/callback`, reviewer.email, reviewer.password));
    expect(landed.location).toBe(`${server.url}/console/members`);
    const members = await browse(jar, landed.location!);
    expect(members.status).toBe(303);
    expect(members.location).toBe(`${server.url}/console/second-factor?return=%2Fconsole%2Fmembers`);
    const verify = await browse(jar, members.location!);
    expect(verify.html).toContain('Confirm it is you');
    const form = (action: string) => {
      const part = verify.html.slice(verify.html.indexOf(`action="${action}"`));
      return { form_token: /name="form_token" value="([^"]+)"/.exec(part)![1], return: '/console/members' };
    };
    const recovery = await browse(jar, `${server.url}/console/second-factor/recovery`, { ...form('/console/second-factor/recovery'), recovery: reviewer.recoveryCodes[0] });
    expect(recovery.location).toBe(`${server.url}/console/members`);
    expect((await browse(jar, recovery.location!)).status).toBe(200);

    // The same recovery code again, in a new sign-in: refused.
    const jar2 = new CookieJar();
    const start2 = await browse(jar2, `${server.url}/console/sign-in`);
    await browse(jar2, await passInteraction(jar2, start2.location!, `${server.url}/console/callback`, reviewer.email, reviewer.password));
    const verify2 = await browse(jar2, `${server.url}/console/second-factor`);
    const token2 = /action="\/console\/second-factor\/recovery"[^]*?name="form_token" value="([^"]+)"/.exec(verify2.html)![1];
    const reused = await browse(jar2, `${server.url}/console/second-factor/recovery`, { form_token: token2, return: '/console', recovery: reviewer.recoveryCodes[0] });
    expect(reused.status).toBe(400);
    expect(reused.html).toContain('That recovery code is not right or was used already.');
    // Four more wrong codes reach the limit: then even the right code waits.
    for (let i = 0; i < 4; i++) expect((await browse(jar2, `${server.url}/console/second-factor/totp`, { form_token: token2, return: '/console', code: '000000' })).status).toBe(400);
    const limited = await browse(jar2, `${server.url}/console/second-factor/totp`, { form_token: token2, return: '/console', code: await totpCode(reviewer.totpSecret!) });
    expect(limited.status).toBe(429);
    expect(limited.html).toContain('Too many attempts');
    expect((await browse(jar2, `${server.url}/console/members`)).status).toBe(303);
  }, 120_000);

  it('answers a page for a stranger, an unknown page and a broken invitation link, never a 500', async () => {
    const none = await fetch(`${server.url}/console/members`, { redirect: 'manual' });
    expect(none.status).toBe(303);
    expect(none.headers.get('location')).toContain('/v1/oidc/auth?');
    expect(none.headers.getSetCookie().join(';')).toContain('console_flow=');
    for (const path of ['/console/invitations/short', '/console/invitations/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const r = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      expect(r.status).toBe(403);
      expect(problemCode(await r.text())).toBe('link_invalid');
    }
    // A NUL never reaches the link check: every page input passes /v1's input rules first (issue 40, finding 10).
    const nul = await fetch(`${server.url}/console/invitations/%00`, { redirect: 'manual' });
    expect(nul.status).toBe(400);
    expect(problemCode(await nul.text())).toBe('invalid_request');
    const unknown = await get(owner, '/console/nothing-here');
    expect(unknown.status).toBe(404);
    const de = await fetch(`${server.url}/console/invitations/short`, { headers: { 'accept-language': 'de-DE' } });
    expect(await de.text()).toContain('Dieser Einladungslink funktioniert nicht');
    const forged = await fetch(`${server.url}/console/callback?code=x&state=y`, { redirect: 'manual' });
    expect(forged.status).toBe(400);
    expect(problemCode(await forged.text())).toBe('sign_in_expired');
  });
});

describe('console limits', () => {
  // Limits long enough that no test waits them out: the rows are moved in time instead.
  const IDLE_SECONDS = 600;
  const SESSION_SECONDS = 3600;
  let server: TestServer;
  let tenant: Tenant;
  let db: Client;
  beforeAll(async () => {
    server = await startOidcServer({
      RATE_LIMIT_ENABLED: 'false',
      CONSOLE_INVITATION_TTL_SECONDS: '2',
      CONSOLE_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS),
      CONSOLE_SESSION_TTL_SECONDS: String(SESSION_SECONDS),
    });
    tenant = await createTenant(server, 'Initech');
    db = await dbClient(server);
  });
  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });
  const status = async (login: ConsoleLogin) => (await fetch(`${server.url}/console/members`, { headers: { cookie: login.cookie }, redirect: 'manual' })).status;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('refuses an invitation link after CONSOLE_INVITATION_TTL_SECONDS', async () => {
    const email = testEmail('late');
    expect((await cli(server.env, ['member', 'invite', '--tenant', tenant.tenant_id, '--email', email, '--role', 'viewer', '--json'])).code).toBe(0);
    const link = await invitationLinkFor(server, email);
    await sleep(2500);
    const expired = await fetch(link);
    expect(expired.status).toBe(410);
    expect(await expired.text()).toContain('This invitation has expired');
  });

  /**
   * A sign-in's row, and the row moved in time: the server compares it with its own clock, so a test that sets the
   * times the row holds (to just inside or well past a limit) gives the same verdict however slowly the machine runs.
   */
  const rowOf = async (login: ConsoleLogin) =>
    (await db.query(`SELECT created_at, last_seen_at, expires_at FROM console_sessions WHERE token_hash = $1`, [sha256(Buffer.from(login.session))])).rows[0] as
      | { created_at: Date; last_seen_at: Date; expires_at: Date }
      | undefined;
  const setRow = (login: ConsoleLogin, set: Partial<Record<'created_at' | 'last_seen_at' | 'expires_at', Date>>) =>
    db.query(`UPDATE console_sessions SET ${Object.keys(set).map((k, i) => `${k} = $${i + 2}`).join(', ')} WHERE token_hash = $1`, [sha256(Buffer.from(login.session)), ...Object.values(set)]);
  const secondsAgo = (s: number) => new Date(Date.now() - s * 1000);

  it('ends a sign-in after CONSOLE_IDLE_TIMEOUT_SECONDS without a request, and slides while it is used', async () => {
    const viewer = await createConsoleMember(server, tenant.tenant_id, 'viewer');
    expect(await status(viewer)).toBe(200);
    // Last seen a minute short of the limit: still signed in, and the request slides the idle clock to now.
    const before = Date.now();
    await setRow(viewer, { last_seen_at: secondsAgo(IDLE_SECONDS - 60) });
    expect(await status(viewer)).toBe(200);
    expect((await rowOf(viewer))!.last_seen_at.getTime()).toBeGreaterThanOrEqual(before);
    // Last seen a second past the limit: the sign-in is over, and its row is gone.
    await setRow(viewer, { last_seen_at: secondsAgo(IDLE_SECONDS + 1) });
    expect(await status(viewer)).toBe(303);
    expect(await rowOf(viewer)).toBeUndefined();
  });

  it('ends a sign-in at CONSOLE_SESSION_TTL_SECONDS however active it is', async () => {
    const viewer = await createConsoleMember(server, tenant.tenant_id, 'viewer');
    const signedIn = (await rowOf(viewer))!;
    expect(signedIn.expires_at.getTime() - signedIn.created_at.getTime()).toBe(SESSION_SECONDS * 1000);
    // Use slides the idle clock, never the end.
    await setRow(viewer, { last_seen_at: secondsAgo(IDLE_SECONDS - 60) });
    expect(await status(viewer)).toBe(200);
    const used = (await rowOf(viewer))!;
    expect(used.last_seen_at.getTime()).toBeGreaterThan(signedIn.last_seen_at.getTime());
    expect(used.expires_at).toEqual(signedIn.expires_at);
    // Signed in SESSION_SECONDS and a second ago, and just used: over all the same (no idle gap ended it).
    await setRow(viewer, { created_at: secondsAgo(SESSION_SECONDS + 1), expires_at: secondsAgo(1), last_seen_at: new Date() });
    expect(await status(viewer)).toBe(303);
    expect(await rowOf(viewer)).toBeUndefined();
  });
});
