import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cli, createTenant, eventually, graphql, http as request, ROOT, startServer, Tenant, testEnv, TestServer } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';

/**
 * Sanctions lists are global to a deployment. Against the shared real PostgreSQL of CI other runs
 * have loaded the same fixtures before, so assertions compare versions rather than assume an
 * empty table; the "no list loaded" case uses a server on its own embedded database in both modes.
 */
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'sanctions');
const fixture = (name: string) => path.join(FIXTURES, name);
const UN_XML = fs.readFileSync(fixture('un_consolidated_excerpt.xml'), 'utf8');

// A UN file with one person renamed to a name unique to this run: refreshing it yields a new version.
const token = Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
const RENAMED = `Zq${token}`;
const UN_REFRESHED = UN_XML.replace('<SECOND_NAME>BADEGE</SECOND_NAME>', `<SECOND_NAME>${RENAMED.toUpperCase()}</SECOND_NAME>`);

let officialSite: http.Server;
let refreshEnv: NodeJS.ProcessEnv;
let siteMode: 'good' | 'broken' = 'good';
const downloads: string[] = [];
let server: TestServer;
let empty: TestServer;
let receiver: WebhookReceiver;
let acme: Tenant;
let emptyTenant: Tenant;
let emptySessionId: string;
let initialUnVersion: string;
/** T3/T4 sessions started once the lists are loaded, decided 10 s later (before the refresh tests rename a UN entry). */
let sessions: { listed: string; clear: string; plain: string };

const SCREEN = `query($i: ScreenIdentityInput!) { screenIdentity(input: $i) {
  threshold listsUsed { list version }
  hits { list entryId reference programme subjectType matchedName score listVersion reasons { feature score detail } } } }`;
const LISTS = '{ sanctionsLists { list current { version format sourceFile entryCount loadedAt ageSeconds } history { version } } }';

const screen = (input: Record<string, unknown>, key = acme.test_api_key) => graphql(server, SCREEN, { i: input }, key);
async function currentVersion(list: string): Promise<string | undefined> {
  const r = await graphql(server, LISTS, {}, acme.test_api_key);
  return (r.body.data.sanctionsLists as { list: string; current: { version: string } | null }[]).find((l) => l.list === list)?.current?.version;
}
const createSession = (s: TestServer, key: string, json: unknown) => request(s, 'POST', '/v1/verify/sessions', { key, json });
/** A test session's outcome, once its clock (10 s, D22) wrote it; the ceiling only bounds a hang: a loaded machine's worker may run the step late. */
async function decided(s: TestServer, key: string, id: string) {
  return eventually(
    async () => {
      const r = await request(s, 'GET', `/v1/verify/sessions/${id}`, { key });
      return r.body.result ? r.body : undefined;
    },
    120_000,
    500,
  );
}

beforeAll(async () => {
  officialSite = http.createServer((req, res) => {
    downloads.push(req.url ?? '');
    if (req.url !== '/consolidated/un.xml') return void res.writeHead(404).end();
    // A download cut off mid-file, as a flaky connection delivers it.
    res.writeHead(200, { 'content-type': 'application/xml' }).end(siteMode === 'good' ? UN_REFRESHED : UN_REFRESHED.slice(0, 5000));
  });
  await new Promise<void>((resolve) => officialSite.listen(0, '127.0.0.1', resolve));
  const site = `http://127.0.0.1:${(officialSite.address() as AddressInfo).port}`;
  // The server's own downloads stay off (testEnv): it would fetch the UN list at start. The CLI's
  // `sanctions refresh` carries the URL of its own environment to whichever worker runs the job.
  const env = testEnv({ SANCTIONS_POLL_SECONDS: '0.5' });
  refreshEnv = { SANCTIONS_URL_UN: `${site}/consolidated/un.xml` };

  const emptyEnv = testEnv({ SANCTIONS_POLL_SECONDS: '0.5' });
  delete emptyEnv.DATABASE_URL; // its own embedded database: no list loaded, whatever the shared one holds
  const startingEmpty = startServer(emptyEnv);
  // Server down: the CLI opens the database itself (the OFAC legacy CSV set, three files).
  const down = await cli(env, ['sanctions', 'load', '--list', 'ofac', '--file', fixture('sdn.csv'), '--alt', fixture('alt.csv'), '--add', fixture('add.csv'), '--json']);
  expect(down.stderr).toBe('');
  expect(down.json).toMatchObject({ list: 'ofac', format: 'ofac_csv', source_file: 'sdn.csv', entries: 17 });

  [server, empty] = await Promise.all([startServer(env), startingEmpty]);
  [acme, emptyTenant] = await Promise.all([createTenant(server, 'sanctions-acme'), createTenant(empty, 'no-lists')]);
  receiver = await WebhookReceiver.start();
  const hook = await request(server, 'POST', '/v1/verify/webhooks', { key: acme.test_api_key, json: { url: receiver.url('/acme'), events: ['verification.manual_review'] } });
  expect(hook.status).toBe(201);
  // Started now so its 10 s test-mode timeline overlaps the tests below.
  const r = await createSession(empty, emptyTenant.test_api_key, { flow_id: 'default', tier: 'T3', metadata: { test_identity: { full_name: 'Eric Badege' } } });
  expect(r.status).toBe(201);
  emptySessionId = r.body.id;
});

afterAll(async () => {
  await Promise.all([server?.stop(), empty?.stop(), receiver?.close()]);
  await new Promise((resolve) => officialSite?.close(resolve));
});

describe('sanctions lists', () => {
  it('loads the official formats with the CLI while the server runs, each as a version in force', async () => {
    const loads = await Promise.all([
      cli(server.env, ['sanctions', 'load', '--list', 'un', '--file', fixture('un_consolidated_excerpt.xml'), '--json']),
      cli(server.env, ['sanctions', 'load', '--list', 'eu', '--file', fixture('fsf_1_1_excerpt.xml'), '--json']),
      cli(server.env, ['sanctions', 'load', '--list', 'au', '--file', fixture('regulation8_consolidated_excerpt.xlsx'), '--format', 'dfat_xlsx', '--json']),
    ]);
    for (const l of loads) expect(l.code).toBe(0);
    expect(loads.map((l) => l.json)).toEqual([
      expect.objectContaining({ list: 'un', format: 'un_xml', entries: 50, version: expect.stringMatching(/^un-2026-02-27-[0-9a-f]{12}$/) }),
      expect.objectContaining({ list: 'eu', format: 'eu_fsf_xml', entries: 5 }),
      expect.objectContaining({ list: 'au', format: 'dfat_xlsx', source_file: 'regulation8_consolidated_excerpt.xlsx' }),
    ]);
    initialUnVersion = loads[0].json!.version as string;

    const r = await graphql(server, LISTS, {}, acme.test_api_key);
    const lists = r.body.data.sanctionsLists as { list: string; current: Record<string, unknown> | null; history: { version: string }[] }[];
    expect(lists.map((l) => l.list)).toEqual(['ofac', 'eu', 'uk', 'un', 'au']);
    const un = lists.find((l) => l.list === 'un')!;
    expect(un.current).toMatchObject({ version: initialUnVersion, format: 'un_xml', sourceFile: 'un_consolidated_excerpt.xml', entryCount: 50 });
    expect(un.current!.ageSeconds).toBeGreaterThanOrEqual(0);
    // The time since its loadedAt, read after the answer: a bound that holds however loaded the machine is.
    expect(un.current!.ageSeconds).toBeLessThanOrEqual(Math.ceil((Date.now() - Date.parse(un.current!.loadedAt as string)) / 1000) + 1);
    expect(un.history.map((h) => h.version)).toContain(initialUnVersion);
    expect(lists.find((l) => l.list === 'ofac')!.current).toMatchObject({ format: 'ofac_csv', sourceFile: 'sdn.csv', entryCount: 17 });

    // The test-mode job screens against the versions in force when it decides, whatever this instance polled last.
    const key = acme.test_api_key;
    const [listed, clear, plain] = await Promise.all([
      createSession(server, key, { flow_id: 'default', tier: 'T3', metadata: { test_identity: { full_name: 'BADEGE, Eric', birth_date: '1971', nationality: 'CD' } } }),
      createSession(server, key, { flow_id: 'default', tier: 'T4', metadata: { test_identity: { full_name: 'Peter Quillfeather' } } }),
      createSession(server, key, { flow_id: 'default', tier: 'T3' }),
    ]);
    for (const c of [listed, clear, plain]) expect(c.status).toBe(201);
    sessions = { listed: listed.body.id, clear: clear.body.id, plain: plain.body.id };
  });

  it('rejects a malformed file naming the file and position, and keeps the previous version in force', async () => {
    const broken = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sanctions-')), 'un_broken.xml');
    try {
      fs.writeFileSync(broken, UN_XML.slice(0, 3000));
      const r = await cli(server.env, ['sanctions', 'load', '--list', 'un', '--file', broken, '--json']);
      expect(r.code).toBe(1);
      expect(r.json).toMatchObject({ error: { code: 'invalid_list_file', file: 'un_broken.xml', position: { line: expect.any(Number) } } });
      expect((r.json!.error as { message: string }).message).toMatch(/^un_broken\.xml:\d+:\d+: /);
    } finally {
      fs.rmSync(path.dirname(broken), { recursive: true, force: true });
    }
    expect(await currentVersion('un')).toBe(initialUnVersion);
    const wrongList = await cli(server.env, ['sanctions', 'load', '--list', 'eu', '--file', fixture('un_consolidated_excerpt.xml'), '--json']);
    expect(wrongList.json).toMatchObject({ error: { code: 'invalid_list_file', file: 'un_consolidated_excerpt.xml' } });
  });
});

describe('screenIdentity', () => {
  it('returns hits with the features that produced their score and the list versions used', async () => {
    const r = await eventually(async () => {
      const res = await screen({ fullName: 'Elvis Angus Logan Morey', birthDate: '1963-07-28' });
      return res.body.data?.screenIdentity.listsUsed.some((l: { list: string }) => l.list === 'un') ? res : undefined;
    });
    const { hits, listsUsed, threshold } = r.body.data.screenIdentity;
    expect(threshold).toBe(0.7);
    expect(listsUsed).toEqual(expect.arrayContaining([{ list: 'un', version: initialUnVersion }]));
    expect(hits[0]).toMatchObject({ list: 'ofac', entryId: '10278', reference: '10278', matchedName: 'LOGAN MOREY, Elvis Angus', subjectType: 'person', score: 1 });
    expect(hits[0].reasons).toEqual(
      expect.arrayContaining([expect.objectContaining({ feature: 'name', score: 1 }), expect.objectContaining({ feature: 'dob_match', detail: expect.stringContaining('28 Jul 1963') })]),
    );
    expect(listsUsed.map((l: { version: string }) => l.version)).toContain(hits[0].listVersion);

    const typo = await screen({ fullName: 'Erik Badegge' });
    expect(typo.body.data.screenIdentity.hits[0]).toMatchObject({ list: 'un', entryId: '6907993', reference: 'CDi.001', programme: 'DRC' });
    expect(typo.body.data.screenIdentity.hits[0].score).toBeLessThan(1);
    expect((await screen({ fullName: 'Peter Quillfeather' })).body.data.screenIdentity.hits).toEqual([]);
  });

  it("names every hit by the list's own reference: the EU reference and DFAT's number", async () => {
    // Each instance switches a loaded list in when it next polls, list by list: wait until both lists read here are in force.
    await eventually(async () => {
      const used = (await screen({ fullName: 'Peter Quillfeather' })).body.data?.screenIdentity.listsUsed as { list: string }[] | undefined;
      return ['eu', 'au'].every((l) => used?.some((u) => u.list === l)) || undefined;
    });
    const hitOf = async (fullName: string, list: string) => (await screen({ fullName })).body.data.screenIdentity.hits.find((h: { list: string }) => h.list === list);
    expect(await hitOf('Abu Zayd Umar Dorda', 'eu')).toMatchObject({ entryId: '6106', reference: 'EU.3886.3', score: 1 });
    expect(await hitOf('Zigor Orbe Sevillano', 'au')).toMatchObject({ entryId: '327', reference: '327', score: 1 });
  });

  it.each([
    ['an empty name', { fullName: '' }, /fullName is required/],
    ['a one-letter name', { fullName: 'x' }, /at least 2 letters/],
    ['a 600-character name', { fullName: 'a'.repeat(600) }, /longer than 500/],
    ['a 10,000-character name', { fullName: 'a'.repeat(10_000) }, /longer than 4096/],
    ['a name of punctuation only', { fullName: '.-,;!!' }, /no letters/],
    ['an impossible date', { fullName: 'Eric Badege', birthDate: '1971-02-30' }, /not a calendar date/],
    ['a date in an unknown format', { fullName: 'Eric Badege', birthDate: '30/01/1971' }, /YYYY or YYYY-MM-DD/],
    ['an unknown nationality code', { fullName: 'Eric Badege', nationality: 'XX' }, /ISO 3166-1 alpha-2/],
  ])('answers %s with invalid_request and never a match', async (_what, input, message) => {
    const r = await screen(input);
    // GraphQL reports a resolver's error in the body (HTTP 200, data null); the code is the contract.
    expect(r.body.data).toBeNull();
    expect(r.body.errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code: 'invalid_request' } });
  });

  it('needs the sanctions:screen scope', async () => {
    const k = await cli(server.env, ['key', 'create', '--tenant', acme.tenant_id, '--mode', 'test', '--scopes', 'sessions:read', '--json']);
    const r = await screen({ fullName: 'Eric Badege' }, k.json!.api_key as string);
    expect(r.body.errors[0].extensions.code).toBe('insufficient_scope');
    expect((await graphql(server, LISTS, {}, k.json!.api_key as string)).body.errors[0].extensions.code).toBe('insufficient_scope');
  });

  it("applies the tenant's own threshold", async () => {
    const [set, bad] = await Promise.all([
      cli(server.env, ['tenant', 'set-threshold', '--tenant', acme.tenant_id, '--threshold', '0.95', '--json']),
      cli(server.env, ['tenant', 'set-threshold', '--tenant', acme.tenant_id, '--threshold', '1.5', '--json']),
    ]);
    expect(set.json).toEqual({ tenant_id: acme.tenant_id, sanctions_threshold: 0.95 });
    expect(bad.code).not.toBe(0);
    // 0.935 for this typo: a hit at the default 0.70, none at 0.95 (exact matches, 1.0, still hit).
    const strict = await screen({ fullName: 'Erik Badegge' });
    expect(strict.body.data.screenIdentity).toMatchObject({ threshold: 0.95, hits: [] });
  });
});

describe('T3 session results', () => {
  it('screens metadata.test_identity: a listed person fails the check with hits and the session goes to review', async () => {
    const key = acme.test_api_key;
    const [a, b, c] = await Promise.all([decided(server, key, sessions.listed), decided(server, key, sessions.clear), decided(server, key, sessions.plain)]);

    expect(a.status).toBe('manual_review');
    expect(a.result.decision).toBe('review');
    expect(a.result.achieved_tier).toBe('T2');
    expect(a.result.badges).not.toContain('sanctions_clear');
    expect(a.result.checks.find((x: { name: string }) => x.name === 'sanctions_screening')).toMatchObject({ status: 'fail', reason: expect.stringContaining(initialUnVersion) });
    expect(a.result.sanctions_hits[0]).toMatchObject({ list: 'un', entry_id: '6907993', reference: 'CDi.001', programme: 'DRC', subject_type: 'person', matched_name: 'ERIC BADEGE', list_version: initialUnVersion });
    expect(a.result.sanctions_hits[0].reasons.map((x: { feature: string }) => x.feature)).toContain('name');
    // The webhook carries the same hits, so a reviewer can look the entry up without reading the session.
    const delivered = await eventually(async () =>
      receiver
        .at('/acme')
        .map((d) => JSON.parse(d.body) as { type: string; data: { session_id: string; sanctions_hits?: unknown[] } })
        .find((e) => e.data.session_id === sessions.listed),
    );
    expect(delivered.type).toBe('verification.manual_review');
    expect(delivered.data.sanctions_hits).toEqual(a.result.sanctions_hits);

    expect(b.status).toBe('success');
    expect(b.result.sanctions_hits).toEqual([]);
    expect(b.result.checks.find((x: { name: string }) => x.name === 'sanctions_screening')).toMatchObject({ status: 'pass', reason: expect.stringContaining('screened against') });
    expect(b.result.badges).toContain('sanctions_clear');

    expect(c.status).toBe('success');
    expect(c.result.sanctions_hits).toEqual([]);
    expect(c.result.checks.find((x: { name: string }) => x.name === 'sanctions_screening')).toMatchObject({ status: 'pass' });
  });

  it('rejects a bad test_identity at creation with the validator message', async () => {
    const r = await createSession(server, acme.test_api_key, { flow_id: 'default', tier: 'T3', metadata: { test_identity: { full_name: 'Eric Badege', nationality: 'ZZ' } } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^metadata\.test_identity\.nationality: .*ISO 3166-1 alpha-2/) });
  });

  it('marks the check as error, never a pass, when no list is loaded', async () => {
    const s = await decided(empty, emptyTenant.test_api_key, emptySessionId);
    expect(s.status).toBe('manual_review');
    expect(s.result.sanctions_hits).toEqual([]);
    expect(s.result.checks.find((x: { name: string }) => x.name === 'sanctions_screening')).toMatchObject({ status: 'error', reason: 'sanctions lists not loaded' });
    expect(s.result.badges).not.toContain('sanctions_clear');
    const r = await graphql(empty, SCREEN, { i: { fullName: 'Eric Badege' } }, emptyTenant.test_api_key);
    expect(r.body.errors[0].extensions.code).toBe('invalid_state');
  });
});

describe('refresh job', () => {
  it('downloads the configured URL and switches the new version in; instances screen against it', async () => {
    siteMode = 'good';
    const before = downloads.length;
    const r = await cli({ ...server.env, ...refreshEnv }, ['sanctions', 'refresh', '--list', 'un', '--json']);
    expect(r.code).toBe(0);
    const version = await eventually(async () => {
      const v = await currentVersion('un');
      return v && v !== initialUnVersion ? v : undefined;
    });
    expect(downloads.slice(before)).toContain('/consolidated/un.xml');
    const lists = (await graphql(server, LISTS, {}, acme.test_api_key)).body.data.sanctionsLists;
    expect(lists.find((l: { list: string }) => l.list === 'un').current).toMatchObject({ version, sourceFile: 'un.xml', entryCount: 50 });
    const hit = await eventually(async () => (await screen({ fullName: `Eric ${RENAMED}` })).body.data.screenIdentity.hits[0]);
    expect(hit).toMatchObject({ list: 'un', entryId: '6907993', listVersion: version });
  });

  it('keeps the previous version in force when the download is malformed', async () => {
    const inForce = await currentVersion('un');
    siteMode = 'broken';
    const before = downloads.length;
    await cli({ ...server.env, ...refreshEnv }, ['sanctions', 'refresh', '--list', 'un', '--json']);
    await eventually(async () => (downloads.length > before ? true : undefined));
    if (!process.env.DATABASE_URL) {
      // With a shared database another test server's worker may take the job; here only ours can.
      await eventually(async () => (server.logs.some((l) => l.includes('sanctions refresh failed') && l.includes('un.xml:')) ? true : undefined));
    } else {
      await new Promise((r) => setTimeout(r, 1500));
    }
    expect(await currentVersion('un')).toBe(inForce);
  });
});
