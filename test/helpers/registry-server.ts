import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ROOT } from './test-server';

/**
 * A local stand-in for the four business registries, answering in each one's documented shapes from
 * test/fixtures/registries (docs/checks.md, "Business registries"): GLEIF's JSON:API and its 404
 * document, SEC EDGAR's JSON and its S3-style XML 404 (and 403 without a User-Agent), Companies House
 * with HTTP Basic auth and its 401/404 bodies, ABN Lookup's JSONP with errors as HTTP 200. It counts
 * every request per registry, with its time, so tests can check the documented limits were kept.
 */
export const REGISTRY_FIXTURES = path.join(ROOT, 'test', 'fixtures', 'registries');
export const TEST_CH_KEY = 'ch-test-key-0123456789';
export const TEST_ABR_GUID = '00000000-1111-2222-3333-444444444444';

export type RegistryKey = 'gleif' | 'sec' | 'ch' | 'abr';
/** `times`: answers this many requests so, then the fixture again (a 429 that passes). */
export type Override = { status?: number; body?: string; contentType?: string; delayMs?: number; headers?: Record<string, string>; times?: number };

export type RegistryServer = {
  url: string;
  /** Env pointing a server's four registries here, with valid credentials. */
  env: Record<string, string>;
  /** Requests seen per registry, with the time each arrived (ms). */
  hits: Record<RegistryKey, number[]>;
  /** Answers `identifier` of `registry` with this instead of the fixture (a 500, a 429, a slow or malformed body). */
  override(registry: RegistryKey, identifier: string, o: Override): void;
  /** Every answer waits this long (the 50 ms registries of the latency goal). */
  delayMs: number;
  /**
   * Holds every answer until `count` requests have arrived (at most 30 s, a bound on a hang), then
   * answers them all: callers that ask one at a time wait the 30 s, callers that ask at once do not.
   * Resolves with whether the count was reached. `answered` has the time of each answer sent.
   */
  holdAnswersUntil(count: number): Promise<boolean>;
  answered: number[];
  close(): Promise<void>;
};

const read = (f: string): string | null => {
  const p = path.join(REGISTRY_FIXTURES, f);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
};

export async function startRegistryServer(): Promise<RegistryServer> {
  const hits: Record<RegistryKey, number[]> = { gleif: [], sec: [], ch: [], abr: [] };
  const overrides = new Map<string, Override>();
  const state = { delayMs: 0 };
  const answered: number[] = [];
  let gate: { count: number; arrived: number; open: Promise<boolean>; release: (reached: boolean) => void } | null = null;
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const send = async (registry: RegistryKey, identifier: string, status: number, body: string, contentType: string) => {
      hits[registry].push(Date.now());
      if (gate) {
        const g = gate;
        if (++g.arrived >= g.count) g.release(true);
        await g.open;
      }
      const o = overrides.get(`${registry}:${identifier}`);
      if (o?.times !== undefined && --o.times <= 0) overrides.delete(`${registry}:${identifier}`);
      const delay = o?.delayMs ?? state.delayMs;
      if (delay) await new Promise((r) => setTimeout(r, delay));
      if (res.destroyed) return;
      answered.push(Date.now());
      res.writeHead(o?.status ?? status, { 'content-type': o?.contentType ?? contentType, ...(o?.headers ?? {}) });
      res.end(o?.body ?? body);
    };
    let m: RegExpMatchArray | null;
    if ((m = u.pathname.match(/^\/gleif\/lei-records\/([A-Z0-9]+)$/))) {
      const body = read(`gleif-${m[1]}.json`);
      return void send('gleif', m[1], body ? 200 : 404, body ?? read('gleif-not-found.json')!, 'application/vnd.api+json');
    }
    if ((m = u.pathname.match(/^\/sec\/submissions\/CIK(\d+)\.json$/))) {
      if (!req.headers['user-agent'] || /node|undici/i.test(req.headers['user-agent'])) return void send('sec', m[1], 403, '<html><body>Undeclared Automated Tool</body></html>', 'text/html');
      const body = m[1].length === 10 ? read(`sec-CIK${m[1]}.json`) : null;
      return void send('sec', m[1], body ? 200 : 404, body ?? read('sec-not-found.xml')!, body ? 'application/json' : 'application/xml');
    }
    if ((m = u.pathname.match(/^\/ch\/company\/([A-Z0-9]+)$/))) {
      if (req.headers.authorization !== `Basic ${Buffer.from(`${TEST_CH_KEY}:`).toString('base64')}`) return void send('ch', m[1], 401, read('ch-unauthorized.json')!, 'application/json');
      const body = read(`ch-${m[1]}.json`);
      return void send('ch', m[1], body ? 200 : 404, body ?? read('ch-not-found.json')!, 'application/json');
    }
    // For a bench that runs this server in its own process: what it counted.
    if (u.pathname === '/_hits') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(hits));
    if (u.pathname === '/abr/AbnDetails.aspx') {
      const abn = u.searchParams.get('abn') ?? '';
      const cb = u.searchParams.get('callback') ?? 'callback';
      const file = u.searchParams.get('guid') !== TEST_ABR_GUID ? 'abr-bad-guid.jsonp' : (read(`abr-${abn}.jsonp`) ? `abr-${abn}.jsonp` : 'abr-not-found.jsonp');
      // ABN Lookup answers every outcome with 200, wrapped in the caller's callback.
      return void send('abr', abn, 200, read(file)!.trim().replace(/^callback\(/, `${cb}(`), 'text/javascript; charset=utf-8');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      REGISTRY_GLEIF_URL: `${url}/gleif`,
      REGISTRY_SEC_URL: `${url}/sec`,
      SEC_USER_AGENT: 'Identity Verification Tests tests@example.com',
      REGISTRY_COMPANIES_HOUSE_URL: `${url}/ch`,
      COMPANIES_HOUSE_API_KEY: TEST_CH_KEY,
      REGISTRY_ABR_URL: `${url}/abr`,
      ABR_GUID: TEST_ABR_GUID,
    },
    hits,
    answered,
    holdAnswersUntil: (count) => {
      let release!: (reached: boolean) => void;
      const open = new Promise<boolean>((resolve) => (release = resolve));
      gate = { count, arrived: 0, open, release };
      const ceiling = setTimeout(() => release(false), 30_000);
      return open.finally(() => {
        clearTimeout(ceiling);
        gate = null;
      });
    },
    override: (registry, identifier, o) => void overrides.set(`${registry}:${identifier}`, o),
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** `node dist/test/helpers/registry-server.js`: serves on a free port in its own process and prints its URL. */
if (require.main === module) {
  void startRegistryServer().then((r) => {
    r.delayMs = Number(process.env.REGISTRY_DELAY_MS ?? 0);
    process.stdout.write(`${r.url}\n`);
  });
}
