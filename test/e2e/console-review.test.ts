import { createConsoleMember, type ConsoleLogin } from '../helpers/console-login';
import { answerChallenge, dbClient, jpegBytes, openPage, pageCall, pngBytes, sha256, upload } from '../helpers/hosted-client';
import { signedInUser } from '../helpers/data-rights-fixtures';
import { createOidcTenant, startOidcServer, testEmail } from '../helpers/oidc-login';
import { createTenant, eventually, http, type Tenant, type TestServer } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * The console's queue, cases, decisions and settings (issue 27, docs/console.md) over HTTP against
 * the built server, with members signed in through the real console sign-in (TOTP for reviewers).
 * Test-mode sessions with `test_outcome: review` fill the queue; a live session with the engines
 * switched off brings real captures (document, selfie, liveness frames) to a case.
 */
describe('console review', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let acme: Tenant;
  let other: Tenant;
  let reviewer: ConsoleLogin;
  let second: ConsoleLogin;
  let viewer: ConsoleLogin;
  let admin: ConsoleLogin;
  let outsider: ConsoleLogin;
  const queued: Record<string, string> = {};
  let liveId = '';
  let liveBytes: { document: Buffer; selfie: Buffer };

  const get = (login: Pick<ConsoleLogin, 'cookie'>, path: string) => fetch(`${server.url}${path}`, { headers: { cookie: login.cookie }, redirect: 'manual' });
  const post = (login: Pick<ConsoleLogin, 'cookie'>, path: string, form: Record<string, string | string[]>) => {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of ([] as string[]).concat(v)) body.append(k, x);
    return fetch(`${server.url}${path}`, { method: 'POST', headers: { cookie: login.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
  };
  /** The form token of the form posting to `action` on the page. */
  const tokenIn = (html: string, action: string): string => {
    const form = html.slice(html.indexOf(`action="${action}"`));
    const m = /name="form_token" value="([^"]+)"/.exec(form);
    if (!m) throw new Error(`no form posting to ${action}`);
    return m[1];
  };
  const decideInConsole = async (login: ConsoleLogin, id: string, decision: string, reason: string) => {
    const page = await (await get(login, `/console/cases/${id}`)).text();
    return post(login, `/console/cases/${id}/decisions`, { form_token: tokenIn(page, `/console/cases/${id}/decisions`), decision, reason });
  };
  const session = async (id: string, key = acme.test_api_key) => (await http(server, 'GET', `/v1/verify/sessions/${id}`, { key })).body;
  const statusOf = (id: string, status: string, key = acme.test_api_key) => eventually(async () => ((await session(id, key)).status === status ? true : undefined), 60_000);
  const queueIds = (html: string) => [...html.matchAll(/data-session-id="(vses_[A-Za-z0-9]+)"/g)].map((m) => m[1]);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    server = await startOidcServer({
      RATE_LIMIT_ENABLED: 'false',
      WEBHOOK_RETRY_SCALE: '0.001',
      // Live checks cannot run: every live session waits for a person, with its captures kept.
      CHECK_DOCUMENT_ENGINE: 'off',
      CHECK_FACE_MATCH_ENGINE: 'off',
      CHECK_LIVENESS_ENGINE: 'off',
      CHECK_ANTI_SPOOF_ENGINE: 'off',
    });
    acme = await createTenant(server, 'Acme Review');
    other = await createTenant(server, 'Other Review');
    const hook = await http(server, 'POST', '/v1/verify/webhooks', { key: acme.test_api_key, json: { url: receiver.url('/acme'), events: ['verification.completed', 'verification.failed', 'verification.manual_review'] } });
    expect(hook.status).toBe(201);
    // Test-mode sessions reach manual_review 10 s after creation: created first, oldest first.
    for (const [name, tier] of [['t1a', 'T1'], ['t2', 'T2'], ['t3', 'T3'], ['t1b', 'T1'], ['t1c', 'T1'], ['t1d', 'T1'], ['t1e', 'T1']] as const) {
      const r = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier, metadata: { test_outcome: 'review' } } });
      expect(r.status).toBe(201);
      queued[name] = r.body.id;
      await new Promise((res) => setTimeout(res, 30)); // distinct completion times
    }
    const approved = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
    queued.approved = approved.body.id;
    const foreign = await http(server, 'POST', '/v1/verify/sessions', { key: other.test_api_key, json: { flow_id: 'default', tier: 'T1', metadata: { test_outcome: 'review' } } });
    queued.foreign = foreign.body.id;

    // A live T2 with real captures: manual_review with every check an error (engines off).
    const live = await http(server, 'POST', '/v1/verify/sessions', { key: acme.live_api_key, json: { flow_id: 'default', tier: 'T2' } });
    liveId = live.body.id;
    const page = await openPage(server, live.body);
    await pageCall(server, page, 'POST', 'start');
    liveBytes = { document: pngBytes(16, 10, [10, 120, 200]), selfie: jpegBytes(3000, 3) };
    expect((await upload(server, page, { class: 'id_document_image' }, liveBytes.document, 'image/png')).status).toBe(201);
    expect((await upload(server, page, { class: 'selfie_image' }, liveBytes.selfie, 'image/jpeg')).status).toBe(201);
    await answerChallenge(server, page, (await pageCall(server, page, 'POST', 'challenge')).body, 2);
    expect((await pageCall(server, page, 'POST', 'submit')).status).toBe(200);

    [reviewer, second, viewer, admin, outsider] = await Promise.all([
      createConsoleMember(server, acme.tenant_id, 'reviewer'),
      createConsoleMember(server, acme.tenant_id, 'reviewer'),
      createConsoleMember(server, acme.tenant_id, 'viewer'),
      createConsoleMember(server, acme.tenant_id, 'admin'),
      createConsoleMember(server, other.tenant_id, 'reviewer'),
    ]);
    await Promise.all([...['t1a', 't2', 't3', 't1b', 't1c', 't1d', 't1e'].map((n) => statusOf(queued[n], 'manual_review')), statusOf(queued.approved, 'success'), statusOf(queued.foreign, 'manual_review', other.test_api_key), statusOf(liveId, 'manual_review', acme.live_api_key)]);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("lists the tenant's manual_review sessions oldest first, with filters by tier, mode and reason, and never another tenant's", async () => {
    const r = await get(reviewer, '/console/queue');
    expect(r.status).toBe(200);
    const html = await r.text();
    const ids = queueIds(html);
    const ours = ['t1a', 't2', 't3', 't1b', 't1c', 't1d', 't1e'].map((n) => queued[n]);
    // Oldest first: in the order the sessions entered manual_review.
    const completed = await Promise.all(ours.map(async (id) => ({ id, at: (await session(id)).completed_at as string })));
    const byAge = completed.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.id < b.id ? -1 : 1)).map((x) => x.id);
    expect(ids.filter((id) => ours.includes(id))).toEqual(byAge);
    expect(ids).toContain(liveId);
    expect(ids).not.toContain(queued.foreign);
    expect(ids).not.toContain(queued.approved);
    expect(html).toContain('A check needs review');
    expect(html).toContain('<label class="label" for="tier">Tier</label>');

    const t1 = queueIds(await (await get(reviewer, '/console/queue?tier=T1&mode=test')).text());
    expect(t1).toEqual(byAge.filter((id) => ['t1a', 't1b', 't1c', 't1d', 't1e'].some((n) => queued[n] === id)));
    const liveOnly = queueIds(await (await get(reviewer, '/console/queue?mode=live')).text());
    expect(liveOnly).toEqual([liveId]);
    // Engines off: the live session's checks are errors, the test ones' a borderline face match.
    expect(queueIds(await (await get(reviewer, '/console/queue?reason=check_error')).text())).toEqual([liveId]);
    expect(queueIds(await (await get(reviewer, '/console/queue?reason=check_review&mode=test')).text())).toEqual(byAge);

    const other = queueIds(await (await get(outsider, '/console/queue')).text());
    expect(other).toEqual([queued.foreign]);
    // German on request.
    expect(await (await get(reviewer, '/console/queue?lang=de-DE')).text()).toContain('Prüfwarteschlange');
  });

  it('pages the queue by keyset: 50 a page, then the rest, none twice', async () => {
    const db = await dbClient(server);
    try {
      // 60 copies of a queued session in a tenant of their own (the bench seeds 10,000 this way).
      const bulk = await createTenant(server, 'Bulk Review');
      const member = await createConsoleMember(server, bulk.tenant_id, 'viewer');
      await db.query(
        `INSERT INTO sessions SELECT (jsonb_populate_record(NULL::sessions, to_jsonb(s) || jsonb_build_object('id', 'vses_bulk' || $3 || lpad(i::text, 6, '0'), 'tenant_id', $2::text,
           'flow_id', (SELECT id FROM flows WHERE tenant_id = $2 AND is_default), 'completed_at', s.completed_at + (i || ' seconds')::interval))).*
         FROM sessions s, generate_series(1, 60) i WHERE s.id = $1`,
        [queued.t1a, bulk.tenant_id, Math.random().toString(36).slice(2, 10)],
      );
      const first = await (await get(member, '/console/queue')).text();
      const page1 = queueIds(first);
      expect(page1).toHaveLength(50);
      const next = /<a rel="next" href="([^"]+)"/.exec(first)![1].replace(/&amp;/g, '&');
      const page2 = queueIds(await (await get(member, next)).text());
      expect(page2).toHaveLength(10);
      expect(new Set([...page1, ...page2]).size).toBe(60);
      expect([...page1, ...page2]).toEqual([...page1, ...page2].sort());
    } finally {
      await db.end();
    }
  }, 60_000);

  it("shows a user's review request as a reason with its deadline, 7 business days after the request", async () => {
    const shop = await createOidcTenant(server, 'Acme Users');
    const user = await signedInUser(server, shop, { email: testEmail('review.requester') });
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: shop.test_api_key, json: { flow_id: 'default', tier: 'T1', user_sub: user.sub, metadata: { test_outcome: 'review' } } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await statusOf(id, 'manual_review', shop.test_api_key);
    const asked = await http(server, 'POST', `/v1/me/verifications/${id}/review`, { key: user.accessToken, json: { reason: 'The document was mine and valid' } });
    expect(asked.status).toBe(202);
    const member = await createConsoleMember(server, shop.tenant_id, 'viewer');
    const html = await (await get(member, '/console/queue?reason=review_request')).text();
    expect(queueIds(html)).toEqual([id]);
    expect(html).toContain('The user asked for a review');
    const due = new Date(asked.body.expected_by as string);
    expect(html).toContain(`${new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(due)} UTC`);
  });

  it('shows a case with its captures through audited links, says "not run" for what did not run, and audits every open with the member', async () => {
    const r = await get(reviewer, `/console/cases/${liveId}`);
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain(`Case ${liveId}`);
    expect(html).toContain('alt="Document image 1"');
    expect(html).toContain('alt="Selfie"');
    expect((html.match(/alt="Liveness frame, step \d"/g) ?? []).length).toBeGreaterThanOrEqual(4);
    expect(html).toMatch(/Step 1 \([a-z_]+\), \+0/);
    expect(html).toContain('CHECK_LIVENESS_ENGINE=off');
    expect(html).toContain('Not run for this session.'); // MRZ, sanctions, registries, chip
    expect(html).toContain('pass at 0.');
    expect(html).toContain('Decision history');

    // The images come through the console's evidence route: the bytes sent, each open audited with the member.
    const images = [...html.matchAll(/<img class="evidence" src="([^"]+)" alt="([^"]+)"/g)].map((m) => ({ href: m[1].replace(/&amp;/g, '&'), alt: m[2] }));
    const doc = images.find((i) => i.alt === 'Document image 1')!;
    const selfie = images.find((i) => i.alt === 'Selfie')!;
    expect(sha256(Buffer.from(await (await get(reviewer, doc.href)).arrayBuffer()))).toBe(sha256(liveBytes.document));
    expect(sha256(Buffer.from(await (await get(reviewer, selfie.href)).arrayBuffer()))).toBe(sha256(liveBytes.selfie));
    // Without a sign-in, or by a member of another tenant, the same link opens nothing.
    expect((await fetch(`${server.url}${doc.href}`, { redirect: 'manual' })).status).toBe(303);
    expect((await get(outsider, doc.href)).status).toBe(403);

    const db = await dbClient(server);
    try {
      const opened = await db.query(`SELECT action, detail FROM audit_log WHERE action IN ('console.case_opened', 'evidence.opened') AND (subject_id = $1 OR detail->>'session_id' = $1) ORDER BY log_seq`, [liveId]);
      expect(opened.rows.map((x) => [x.action, x.detail.member_id])).toEqual([
        ['console.case_opened', reviewer.memberId],
        ['evidence.opened', reviewer.memberId],
        ['evidence.opened', reviewer.memberId],
      ]);
    } finally {
      await db.end();
    }
    // The case's own audit trail shows those opens, by member.
    const again = await (await get(reviewer, `/console/cases/${liveId}`)).text();
    expect(again.match(new RegExp(`<td>${reviewer.memberId}</td>`, 'g'))?.length).toBeGreaterThanOrEqual(3);

    // A T3 in test mode: screened, no hit; a face-match score against the thresholds.
    const t3 = await (await get(reviewer, `/console/cases/${queued.t3}`)).text();
    expect(t3).toContain('Screened: no list entry matched.');
    expect(t3).toContain('0.64');
  });

  it('decides from the case page as the member, and the decision produces the webhook', async () => {
    const id = queued.t1a;
    const r = await decideInConsole(reviewer, id, 'approve', 'Document checked by hand');
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`/console/cases/${id}?done=approve`);
    const s = await session(id);
    expect(s.status).toBe('success');
    const history = (await http(server, 'GET', `/v1/verify/sessions/${id}/decisions`, { key: acme.test_api_key })).body.data;
    expect(history.at(-1)).toMatchObject({ source: 'human', decision: 'approve', reviewer_id: reviewer.memberId, to_status: 'success' });
    const event = await eventually(async () => receiver.received.map((x) => JSON.parse(x.body)).find((e) => e.data.session_id === id && e.type === 'verification.completed'));
    expect(event.data).toMatchObject({ status: 'success', decision: 'approved' });
    const page = await (await get(reviewer, `/console/cases/${id}?done=approve`)).text();
    expect(page).toContain('Decision recorded: Approve.');
    // Decided: it left the queue; a second decision is refused on the page.
    expect(queueIds(await (await get(reviewer, '/console/queue')).text())).not.toContain(id);
    const db = await dbClient(server);
    try {
      const audited = await db.query(`SELECT detail FROM audit_log WHERE action = 'session.reviewed' AND subject_id = $1`, [id]);
      expect(audited.rows[0].detail).toMatchObject({ member_id: reviewer.memberId, decision: 'approve' });
    } finally {
      await db.end();
    }
  });

  it('refuses bad input on the page with an error summary, and reverses a decided session', async () => {
    const bad = await decideInConsole(reviewer, queued.t1b, 'approve', 'no');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Enter a reason of at least 3 characters.');
    expect((await session(queued.t1b)).status).toBe('manual_review');

    const reversed = await decideInConsole(reviewer, queued.approved, 'reverse', 'Fraud found later');
    expect(reversed.status).toBe(303);
    expect((await session(queued.approved)).status).toBe('failed');
  });

  it("refuses a viewer's decision in the page (no form) and at the route (403)", async () => {
    const id = queued.t1b;
    const page = await (await get(viewer, `/console/cases/${id}`)).text();
    expect(page).toContain('Your role (viewer) can read cases but not decide them.');
    expect(page).not.toContain(`action="/console/cases/${id}/decisions"`);
    expect(page).toContain('Evidence is shown to reviewers, admins and owners.');
    const token = tokenIn(await (await get(reviewer, `/console/cases/${id}`)).text(), `/console/cases/${id}/decisions`);
    const r = await post(viewer, `/console/cases/${id}/decisions`, { form_token: token, decision: 'approve', reason: 'I am only a viewer' });
    expect(r.status).toBe(403);
    expect((await session(id)).status).toBe('manual_review');
  });

  it("never shows a member of another tenant this tenant's cases: 404", async () => {
    const r = await get(outsider, `/console/cases/${queued.t1b}`);
    expect(r.status).toBe(404);
    expect(await r.text()).toContain('Case not found');
    const page = await (await get(outsider, `/console/cases/${queued.foreign}`)).text();
    const token = tokenIn(page, `/console/cases/${queued.foreign}/decisions`);
    // A valid form token of its own sign-in, another tenant's session: 404, and nothing decided.
    const tried = await post(outsider, `/console/cases/${queued.t1b}/decisions`, { form_token: token, decision: 'approve', reason: 'Not my tenant' });
    expect(tried.status).toBe(404);
    expect((await session(queued.t1b)).status).toBe('manual_review');
  });

  it('with "second reviewer" on, holds a decline until a different member confirms it', async () => {
    const settings = await (await get(admin, '/console/settings')).text();
    const on = await post(admin, '/console/settings/review', { form_token: tokenIn(settings, '/console/settings/review'), second_reviewer: 'on' });
    expect(on.status).toBe(303);
    expect(await (await get(viewer, '/console/settings')).text()).toMatch(/A second reviewer confirms every decline<\/dt><dd>On/);

    const id = queued.t1c;
    const first = await decideInConsole(reviewer, id, 'decline', 'Photo does not match');
    expect(first.headers.get('location')).toBe(`/console/cases/${id}?done=decline_pending`);
    expect((await session(id)).status).toBe('manual_review');
    expect(await (await get(reviewer, '/console/queue?tier=T1')).text()).toContain('Decline waits for a second reviewer');
    const own = await decideInConsole(reviewer, id, 'decline', 'Photo does not match');
    expect(own.status).toBe(409);
    expect(await own.text()).toContain('a different member must confirm it');

    const confirmed = await decideInConsole(second, id, 'decline', 'Agreed: not the same person');
    expect(confirmed.headers.get('location')).toBe(`/console/cases/${id}?done=decline`);
    expect((await session(id)).status).toBe('failed');
    const history = (await http(server, 'GET', `/v1/verify/sessions/${id}/decisions`, { key: acme.test_api_key })).body.data;
    expect(history.at(-1)).toMatchObject({ decision: 'decline', reviewer_id: second.memberId });
    await eventually(async () => receiver.received.map((x) => JSON.parse(x.body)).find((e) => e.data.session_id === id && e.type === 'verification.failed'));
    const db = await dbClient(server);
    try {
      const proposed = await db.query(`SELECT detail FROM audit_log WHERE action = 'session.decline_proposed' AND subject_id = $1`, [id]);
      expect(proposed.rows[0].detail.member_id).toBe(reviewer.memberId);
    } finally {
      await db.end();
    }
    // Two members confirming one pending decline at once: one decision, and the other gets the conflict.
    const raced = queued.t1d;
    await decideInConsole(reviewer, raced, 'decline', 'Document looks altered');
    const [x, y] = await Promise.all([decideInConsole(second, raced, 'decline', 'Agreed, altered'), decideInConsole(admin, raced, 'decline', 'Agreed too')]);
    expect([x.status, y.status].sort()).toEqual([303, 409]);
    expect((await session(raced)).status).toBe('failed');
    const humans = (await http(server, 'GET', `/v1/verify/sessions/${raced}/decisions`, { key: acme.test_api_key })).body.data.filter((d: { source: string }) => d.source === 'human');
    expect(humans).toHaveLength(1);
    await post(admin, '/console/settings/review', { form_token: tokenIn(settings, '/console/settings/review'), second_reviewer: 'off' });
  });

  it('shows the chip verdict of a T5 case and the registry checks of a T4 case', async () => {
    const [t5, t4] = await Promise.all(
      ['T5', 'T4'].map(async (tier) => (await http(server, 'POST', '/v1/verify/sessions', { key: other.test_api_key, json: { flow_id: 'default', tier, metadata: { test_outcome: 'review' } } })).body.id as string),
    );
    await Promise.all([statusOf(t5, 'manual_review', other.test_api_key), statusOf(t4, 'manual_review', other.test_api_key)]);
    const chip = await (await get(outsider, `/console/cases/${t5}`)).text();
    expect(chip).toContain('Pass: Document is genuine and unmodified per ICAO 9303 Passive Authentication.');
    expect(chip).toMatch(/ds_signature<\/dt><dd>succeeded/);
    const business = await (await get(outsider, `/console/cases/${t4}`)).text();
    for (const check of ['lei_registry', 'sec_filings', 'uk_company_register', 'au_business_register']) expect(business).toContain(`<h3>${check}: Pass</h3>`);
    expect(business).toContain('Screened: no list entry matched.');
  });

  it('lets an admin change settings (a key shown once and revoked, redirect URIs, a flow, retention in range, a webhook replay from its delivery log) and refuses a reviewer at the route', async () => {
    const page = await (await get(admin, '/console/settings')).text();
    const token = tokenIn(page, '/console/settings/keys');
    const created = await post(admin, '/console/settings/keys', { form_token: token, mode: 'test', scopes: ['sessions:read'] });
    expect(created.status).toBe(200);
    const key = /<p class="key">(sk_test_[A-Za-z0-9]+)<\/p>/.exec(await created.text())![1];
    expect((await http(server, 'GET', `/v1/verify/sessions/${queued.t1b}`, { key })).status).toBe(200);
    expect(await (await get(admin, '/console/settings')).text()).not.toContain(key);
    // Revoked from the console: the key stops working at once.
    const keyId = /action="\/console\/settings\/keys\/(key_[A-Za-z0-9]+)\/revoke"/.exec(await (await get(admin, '/console/settings')).text())?.[1];
    expect(keyId).toBeDefined();
    const revoked = await post(admin, `/console/settings/keys/${keyId}/revoke`, { form_token: token });
    expect(revoked.status).toBe(303);
    expect((await http(server, 'GET', `/v1/verify/sessions/${queued.t1b}`, { key })).status).toBe(401);

    // The test client's redirect URIs, set to exactly what the form holds.
    const uris = await post(admin, '/console/settings/redirect-uris', { form_token: token, mode: 'test', uris: 'https://app.acme.test/callback\nhttp://localhost:3000/cb' });
    expect(uris.status).toBe(303);
    const settings = await (await get(viewer, '/console/settings')).text();
    expect(settings).toContain('https://app.acme.test/callback');
    expect(settings).toContain('http://localhost:3000/cb');

    const flow = await post(admin, '/console/settings/flows', { form_token: token, name: 'Onboarding DE', max_tier: 'T2', display_name: 'Acme DE', primary_color: '#004488', locale: 'de-DE', logo_url: '', redirect_url: '' });
    expect(flow.status).toBe(303);
    expect(await (await get(viewer, '/console/settings')).text()).toContain('Onboarding DE');
    // The flow editor's digital-ID choice (D24): on by default, switched off here, honoured by the API's view of the flow.
    expect(page).toMatch(/id="flow-new-digital_id-on" name="digital_id" value="on" checked/);
    const counter = await post(admin, '/console/settings/flows', { form_token: token, name: 'Counter only', max_tier: 'T1', display_name: 'Acme', primary_color: '#004488', locale: 'en-US', logo_url: '', redirect_url: '', digital_id: 'off' });
    expect(counter.status).toBe(303);
    const listed = (await http(server, 'GET', '/v1/developer/flows', { key: acme.test_api_key })).body.data as { id: string; name: string; digital_id: boolean }[];
    const counterFlow = listed.find((f) => f.name === 'Counter only')!;
    expect(counterFlow.digital_id).toBe(false);
    expect(listed.find((f) => f.name === 'Onboarding DE')!.digital_id).toBe(true);
    expect(await (await get(admin, '/console/settings')).text()).toMatch(new RegExp(`id="flow-${counterFlow.id}-digital_id-off" name="digital_id" value="off" checked`));
    const switchedOn = await post(admin, `/console/settings/flows/${counterFlow.id}`, { form_token: token, name: 'Counter only', max_tier: 'T1', digital_id: 'on' });
    expect(switchedOn.status).toBe(303);
    expect((await http(server, 'GET', `/v1/developer/flows/${counterFlow.id}`, { key: acme.test_api_key })).body.digital_id).toBe(true);

    const tooLong = await post(admin, '/console/settings/retention', { form_token: token, mode: 'test', biometric_template_days: '9999' });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).toContain('biometric_template_days');
    const fine = await post(admin, '/console/settings/retention', { form_token: token, mode: 'test', selfie_image_days: '7' });
    expect(fine.status).toBe(303);
    expect((await http(server, 'GET', `/v1/developer/tenants/${acme.tenant_id}/retention`, { key: acme.test_api_key })).body.selfie_image_days).toBe(7);

    // The webhook's delivery log, with its attempts, and a replay of the last 24 hours.
    const logHref = /href="(\/console\/settings\/webhooks\/whk_[A-Za-z0-9]+\?mode=test)"/.exec(page)![1];
    const log = await (await get(admin, logHref)).text();
    expect(log).toContain('Deliveries of');
    expect(log).toMatch(/<td>evt_[A-Za-z0-9]+<\/td><td>1<\/td><td>200 OK<\/td>/);
    const before = receiver.received.length;
    const replay = await post(admin, `${logHref.split('?')[0]}/replay`, { form_token: tokenIn(log, `${logHref.split('?')[0]}/replay`), mode: 'test' });
    expect(replay.status).toBe(303);
    const count = Number(/replayed=(\d+)/.exec(replay.headers.get('location') ?? '')![1]);
    expect(count).toBeGreaterThan(0);
    await eventually(async () => (receiver.received.length >= before + count ? true : undefined));

    const refused = await post(reviewer, '/console/settings/review', { form_token: token, second_reviewer: 'on' });
    expect(refused.status).toBe(403);
    const db = await dbClient(server);
    try {
      const changes = await db.query(`SELECT detail->>'setting' AS setting, detail->>'member_id' AS member FROM audit_log WHERE action = 'console.settings_changed' AND tenant_id = $1 ORDER BY log_seq`, [acme.tenant_id]);
      expect(changes.rows).toEqual(expect.arrayContaining([{ setting: 'api_key.created', member: admin.memberId }, { setting: 'flow.created', member: admin.memberId }, { setting: 'retention.updated', member: admin.memberId }, { setting: 'api_key.revoked', member: admin.memberId }, { setting: 'oidc.redirect_uris', member: admin.memberId }]));
    } finally {
      await db.end();
    }
  });
});
