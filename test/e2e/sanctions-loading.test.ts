import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { OFFICIAL_LIST_URLS } from '../../src/sanctions/official-sources';
import { cli, eventually, http as request, ROOT, SANCTIONS_DOWNLOADS_OFF, startServer, testEnv, TestServer } from '../helpers/test-server';

/**
 * How lists get there (docs/sanctions.md, "Loading"): the official addresses by default, a
 * download at start of every list missing or older than 24 h (retried with backoff), the CLI
 * offline, and /healthz reporting each list's version and age. The official servers are never
 * reached: sources are a local HTTP server serving the fixtures, an unreachable address, or a
 * server whose workers (the only fetchers) are off. Every server has a database of its own, since
 * a shared one may already hold fresh lists (then nothing is fetched at start).
 */
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'sanctions');
const FILES: Record<string, string> = {
  '/ofac/SDN.XML': 'consolidated_excerpt.xml',
  '/eu/fsf.xml': 'fsf_1_1_excerpt.xml',
  '/uk/UK-Sanctions-List.xml': 'uk_sanctions_list_excerpt.xml',
  '/un/consolidated.xml': 'un_consolidated_excerpt.xml',
  '/au/Australian_Sanctions_Consolidated_List.xlsx': 'Australian_Sanctions_Consolidated_List_excerpt.xlsx',
};
const LISTS = ['ofac', 'eu', 'uk', 'un', 'au'] as const;

/** When each path was asked for; the UN list answers 503 the first time (an official server having a bad minute). */
const requests: { path: string; at: number; status: number }[] = [];
let site: http.Server;
let siteUrl: string;
const dropDatabases: (() => Promise<void>)[] = [];
const started: TestServer[] = [];

/** A database of its own: a fresh embedded one, or with DATABASE_URL a fresh database on that server. */
async function ownDatabaseEnv(label: string): Promise<NodeJS.ProcessEnv> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return { DATABASE_URL: undefined };
  const name = `ivs_${label}_${process.pid}_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`).finally(() => admin.end());
  dropDatabases.push(async () => {
    const c = new Client({ connectionString: serverUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => c.end());
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { DATABASE_URL: url.toString() };
}

function envWith(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = testEnv(extra);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

async function start(env: NodeJS.ProcessEnv): Promise<TestServer> {
  const s = await startServer(env);
  started.push(s);
  return s;
}

const logLines = (s: TestServer) => s.logs.flatMap((l) => l.split('\n')).flatMap((l) => {
  try {
    return [JSON.parse(l) as { msg: string; time: number; list?: string; reason?: string; lists?: string[] }];
  } catch {
    return [];
  }
});
const health = async (s: TestServer) => (await request(s, 'GET', '/healthz')).body;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    // `/twin/...` serves the same files to the two-instance test, counted apart.
    const file = FILES[(req.url ?? '').replace(/^\/twin(?=\/)/, '')];
    const first = !requests.some((r) => r.path === req.url);
    const status = !file ? 404 : req.url === '/un/consolidated.xml' && first ? 503 : 200;
    requests.push({ path: req.url ?? '', at: Date.now(), status });
    if (status !== 200) return void res.writeHead(status).end();
    // The two-instance test's downloads take a while, so that two jobs, had both been queued, would overlap.
    const delay = req.url?.startsWith('/twin/') ? 3000 : 0;
    setTimeout(() => res.writeHead(200).end(fs.readFileSync(path.join(FIXTURES, file))), delay);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  await new Promise((resolve) => site?.close(resolve));
  for (const drop of dropDatabases) await drop();
});

describe('official sources by default', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Unset SANCTIONS_URL_*: the defaults. Workers off, so nothing is fetched from the real servers.
    const env = envWith({ ...(await ownDatabaseEnv('defaults')), WORKER_ENABLED: 'false', SANCTIONS_POLL_SECONDS: '0.5' });
    for (const k of Object.keys(SANCTIONS_DOWNLOADS_OFF)) delete env[k];
    server = await start(env);
  });

  it('downloads each list from its official address unless switched off, as /healthz and the docs say', async () => {
    const h = await health(server);
    for (const list of LISTS) {
      const u = new URL(OFFICIAL_LIST_URLS[list]);
      expect(h.sanctions_lists[list]).toEqual({ version: null, loaded_at: null, age_seconds: null, source: u.origin });
    }
    const docs = fs.readFileSync(path.join(ROOT, 'docs', 'sanctions.md'), 'utf8');
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const url of Object.values(OFFICIAL_LIST_URLS)) expect(docs).toContain(url);
    expect(readme).toContain('SANCTIONS_URL_OFAC');
    expect(readme).toMatch(/SANCTIONS_URL_\w+.*\boff\b/);
  });

  it('warns at start that no list is loaded', async () => {
    await server.settledLogs();
    expect(logLines(server).filter((l) => l.msg.startsWith('no sanctions list is loaded'))).toHaveLength(1);
  });

  it('loads a list from a file with the CLI, offline, and /healthz reports its version and age', async () => {
    const r = await cli(server.env, ['sanctions', 'load', '--list', 'un', '--file', path.join(FIXTURES, 'un_consolidated_excerpt.xml'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.json).toMatchObject({ list: 'un', entries: 50, source_file: 'un_consolidated_excerpt.xml' });
    const un = await eventually(async () => (await health(server)).sanctions_lists.un.version ? (await health(server)).sanctions_lists.un : undefined, 60_000);
    expect(un).toMatchObject({ version: r.json!.version, loaded_at: r.json!.loaded_at });
    // The age is the time since loaded_at, whatever the machine's speed: bracketed by clock readings around a read.
    const before = Date.now();
    const age = (await health(server)).sanctions_lists.un.age_seconds as number;
    const after = Date.now();
    const loadedAt = Date.parse(r.json!.loaded_at as string);
    expect(age).toBeGreaterThanOrEqual(Math.floor((before - loadedAt) / 1000) - 1);
    expect(age).toBeLessThanOrEqual(Math.ceil((after - loadedAt) / 1000) + 1);
    expect((await health(server)).sanctions_lists.eu.version).toBeNull();
  });
});

describe('download at start', () => {
  let first: TestServer;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    env = envWith({
      ...(await ownDatabaseEnv('startup')),
      SANCTIONS_URL_OFAC: `${siteUrl}/ofac/SDN.XML`,
      SANCTIONS_URL_EU: `${siteUrl}/eu/fsf.xml`,
      SANCTIONS_URL_UK: `${siteUrl}/uk/UK-Sanctions-List.xml`,
      SANCTIONS_URL_UN: `${siteUrl}/un/consolidated.xml`,
      SANCTIONS_URL_AU: `${siteUrl}/au/Australian_Sanctions_Consolidated_List.xlsx`,
      SANCTIONS_RETRY_SECONDS: '1',
      SANCTIONS_POLL_SECONDS: '0.5',
    });
    first = await start(env);
  });

  it('fetches every missing list once the server is up, and /healthz shows each version and age', async () => {
    const lists = await eventually(async () => {
      const h = (await health(first)).sanctions_lists;
      return LISTS.every((l) => h[l].version) ? h : undefined;
    }, 60_000, 500);
    for (const list of LISTS) {
      expect(lists[list]).toMatchObject({ version: expect.stringMatching(new RegExp(`^${list}-`)), source: expect.stringContaining(siteUrl) });
      // The time since its loaded_at, read after the answer (a bound that holds however loaded the machine is).
      expect(lists[list].age_seconds).toBeGreaterThanOrEqual(0);
      expect(lists[list].age_seconds).toBeLessThanOrEqual(Math.ceil((Date.now() - Date.parse(lists[list].loaded_at)) / 1000) + 1);
    }
    expect(logLines(first).some((l) => l.msg === 'sanctions lists missing or older than 24 h: a download is queued' && l.lists?.length === 5)).toBe(true);
    for (const p of Object.keys(FILES)) expect(requests.filter((r) => r.path === p && r.status === 200)).toHaveLength(1);
  });

  it('tries a failed download again after the retry delay, not back to back', async () => {
    const un = requests.filter((r) => r.path === '/un/consolidated.xml');
    expect(un.map((r) => r.status)).toEqual([503, 200]);
    // SANCTIONS_RETRY_SECONDS=1: pg-boss waits at least that long before the second try.
    expect(un[1].at - un[0].at).toBeGreaterThanOrEqual(950);
    expect(logLines(first).some((l) => l.msg === 'sanctions refresh failed; the previous version stays in force' && l.list === 'un' && /HTTP 503/.test(l.reason ?? ''))).toBe(true);
  });

  it('fetches nothing at the next start while the lists are younger than 24 h', async () => {
    expect(await first.stop()).toBe(0);
    const before = requests.length;
    const again = await start(env);
    const h = await eventually(async () => {
      const lists = (await health(again)).sanctions_lists;
      return LISTS.every((l) => lists[l].version) ? lists : undefined;
    });
    expect(Object.keys(h)).toEqual([...LISTS]);
    await new Promise((r) => setTimeout(r, 2000));
    expect(requests.length).toBe(before);
    expect(logLines(again).some((l) => l.msg.startsWith('no sanctions list is loaded'))).toBe(false);
  });
});

// Two instances need a database both reach: a real PostgreSQL (the embedded one belongs to one process).
const onSharedDatabase = process.env.DATABASE_URL ? describe : describe.skip;
onSharedDatabase('two instances starting together', () => {
  it('download each missing list once between them', async () => {
    const env = envWith({
      ...(await ownDatabaseEnv('twins')),
      SANCTIONS_URL_UN: `${siteUrl}/twin/un/consolidated.xml`,
      SANCTIONS_URL_UK: `${siteUrl}/twin/uk/UK-Sanctions-List.xml`,
      SANCTIONS_POLL_SECONDS: '0.5',
    });
    const [a, b] = await Promise.all([start(env), start(env)]);
    for (const s of [a, b]) {
      await eventually(async () => {
        const lists = (await health(s)).sanctions_lists;
        return lists.un.version && lists.uk.version ? true : undefined;
      }, 60_000, 500);
    }
    await new Promise((r) => setTimeout(r, 2000));
    const twins = requests.filter((r) => r.path.startsWith('/twin/')).map((r) => r.path).sort();
    // One job per singleton key and 5-minute window: instances whose start falls either side of a
    // window's edge queue one each (the second then finds fresh lists, or both download: harmless).
    const queuedAt = [a, b].map((s) => logLines(s).find((l) => l.msg === 'sanctions lists missing or older than 24 h: a download is queued')?.time ?? 0);
    const sameWindow = new Set(queuedAt.map((t) => Math.floor(t / 300_000))).size === 1;
    if (sameWindow) expect(twins).toEqual(['/twin/uk/UK-Sanctions-List.xml', '/twin/un/consolidated.xml']);
    else expect(twins.length).toBeLessThanOrEqual(4);
  });
});

describe('an unreachable source', () => {
  it('fails fast and harmlessly: the server answers, logs why, and stops promptly', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
    const server = await start(
      envWith({
        ...(await ownDatabaseEnv('unreachable')),
        SANCTIONS_URL_UN: `http://127.0.0.1:${closedPort}/un.xml`,
        // .invalid never resolves (RFC 2606), on a closed network as on the internet.
        SANCTIONS_URL_EU: 'http://sanctions-list.invalid/eu.xml',
      }),
    );
    const h = await health(server);
    expect(h).toMatchObject({ status: 'ok', sanctions_lists: { un: { version: null }, eu: { version: null }, ofac: { source: 'off' } } });
    const failures = await eventually(async () => {
      const f = logLines(server).filter((l) => l.msg === 'sanctions refresh failed; the previous version stays in force');
      return f.length >= 2 ? f : undefined;
    });
    expect(Object.fromEntries(failures.map((f) => [f.list, f.reason]))).toEqual({
      un: expect.stringContaining('ECONNREFUSED'),
      eu: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/),
    });
    // Both failed for what they are (refused, not resolved), not for "no answer in time": neither waited
    // for the fetch timeout, which a timing of the log lines would show only on an idle machine. Nothing
    // else broke, and the server stops cleanly.
    expect((await health(server)).status).toBe('ok');
    expect(await server.stop()).toBe(0);
  });
});
