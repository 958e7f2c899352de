import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

/**
 * What the hosted-flow benches share: the bodies they upload, running N at a time with timings, the
 * server's RSS, and a session opened the way the page opens it. The benches: hosted.bench.ts (the
 * filesystem store) and hosted-s3.bench.ts (the S3 store).
 */
export const MIB = 1024 * 1024;

export type Timing = { ms: number; bytes: number };

/** NODE_OPTIONS for the server alone (`--cpu-prof --cpu-prof-dir=...` to profile it): its env is otherwise the bench's own choice. */
const SERVER_NODE_OPTIONS = process.env.HOSTED_BENCH_SERVER_NODE_OPTIONS;

/** The server's env for a bench's `env`: with SERVER_NODE_OPTIONS when given. */
export const serverEnvOf = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => (SERVER_NODE_OPTIONS ? { ...env, NODE_OPTIONS: SERVER_NODE_OPTIONS } : env);

// With a profiled server, each phase also says its monotonic time in µs: the clock of the .cpuprofile's timestamps on Linux, to cut a phase out of it.
export const progress = (bench: string, what: string) =>
  console.error(`[${bench} ${new Date().toISOString().slice(11, 19)}${SERVER_NODE_OPTIONS ? ` mono ${process.hrtime.bigint() / 1000n}` : ''}] ${what}`);

/** A JPEG signature, then incompressible bytes: nothing on the way can shrink them. */
export function jpeg(seed: number, size: number): Buffer {
  const b = randomBytes(size);
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]).copy(b, 0);
  b[12] = seed & 0xff;
  b[size - 2] = 0xff;
  b[size - 1] = 0xd9;
  return b;
}

/** The q-quantile of xs (nearest rank). */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}

/** `serverCpuMs`: the CPU the serving process spent in the phase, when a process served it. */
export function summary(name: string, timings: Timing[], wallMs: number, serverCpuMs?: number) {
  const bytes = timings.reduce((n, t) => n + t.bytes, 0);
  const cpuMsPerMiB = serverCpuMs === undefined ? undefined : serverCpuMs / (bytes / MIB);
  return { name, count: timings.length, mib: bytes / MIB, mibPerS: bytes / MIB / (wallMs / 1000), p50: quantile(timings.map((t) => t.ms), 0.5), p99: quantile(timings.map((t) => t.ms), 0.99), wallMs, cpuMsPerMiB };
}
export type Summary = ReturnType<typeof summary>;

export const SUMMARY_HEADER = '| case | n | MiB/s | p50 ms | p99 ms | throughput / baseline | server CPU ms/MiB |\n|---|---|---|---|---|---|---|';

/** One markdown row under SUMMARY_HEADER: throughput, latency, the ratio to `base` and the server's CPU per MiB. */
export const summaryRow = (s: Summary, base: Summary) =>
  `| ${s.name} | ${s.count} | ${s.mibPerS.toFixed(1)} | ${s.p50.toFixed(0)} | ${s.p99.toFixed(0)} | ${(s.mibPerS / base.mibPerS).toFixed(2)}x | ${s.cpuMsPerMiB === undefined ? '' : s.cpuMsPerMiB.toFixed(1)} |`;

/**
 * CPU time (user + system, all threads) a process has used, in ms, from /proc (USER_HZ 100). Unlike
 * throughput it does not change with what else the shared machine runs: the cost per MiB of the
 * server and of the ceiling compare across runs.
 */
export function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The CPU each named process spends from now to `stop()`, in ms: on a machine whose cores every
 * process of a bench shares, what each costs per MiB, and how many cores they kept busy together.
 */
function cpuMeter(pids: Record<string, number>) {
  const start = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
  return { stop: (): Record<string, number> => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid) - start[name]])) };
}

/** A markdown row of what `cpuMeter` measured over a phase that moved `s`: each process's CPU per MiB, their sum, and the cores busy. */
export function cpuRow(s: Summary, cpuMs: Record<string, number>): string {
  const total = Object.values(cpuMs).reduce((a, b) => a + b, 0);
  return `| ${s.name} | ${Object.values(cpuMs).map((ms) => (ms / s.mib).toFixed(1)).join(' | ')} | ${(total / s.mib).toFixed(1)} | ${(total / s.wallMs).toFixed(2)} |`;
}

/** The header of cpuRow's table for processes `names`. */
export const cpuHeader = (names: string[]) => `| case | ${names.map((n) => `${n} CPU ms/MiB`).join(' | ')} | sum ms/MiB | cores busy |\n|---|${names.map(() => '---|').join('')}---|---|`;

/** `timed`, and the CPU each named process spent meanwhile (cpuMeter). */
export async function timedWith<T>(pids: Record<string, number>, items: T[], concurrency: number, fn: (item: T, i: number) => Promise<number>): Promise<{ timings: Timing[]; wallMs: number; cpu: Record<string, number> }> {
  const meter = cpuMeter(pids);
  const r = await timed(items, concurrency, fn);
  return { ...r, cpu: meter.stop() };
}

/** `timed`, and the CPU the serving process `pid` spent meanwhile. */
export async function timedOn<T>(pid: number, items: T[], concurrency: number, fn: (item: T, i: number) => Promise<number>): Promise<{ timings: Timing[]; wallMs: number; cpuMs: number }> {
  const r = await timedWith({ serving: pid }, items, concurrency, fn);
  return { timings: r.timings, wallMs: r.wallMs, cpuMs: r.cpu.serving };
}

/** Runs `fn` over `items`, `concurrency` at a time; each call returns the bytes it moved. */
export async function timed<T>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<number>): Promise<{ timings: Timing[]; wallMs: number }> {
  const timings: Timing[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        const t0 = performance.now();
        const bytes = await fn(items[i], i);
        timings.push({ ms: performance.now() - t0, bytes });
      }
    }),
  );
  return { timings, wallMs: performance.now() - start };
}

/** Samples a process's resident set every 20 ms; `peak()` is the largest seen. */
export function rssSampler(pid: number) {
  const read = () => {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  };
  let peak = read();
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, read());
    } catch {
      /* exited */
    }
  }, 20);
  return { now: read, peak: () => peak, stop: () => clearInterval(timer) };
}

export async function json(res: Response): Promise<any> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text);
}

/**
 * The socket pool of the benches' body transfers: keep-alive, no cap on sockets. The timed uploads and
 * downloads go through node:http rather than fetch: sending 200 x 5 MiB, fetch (undici) spent 5.5 ms
 * of the client's CPU per MiB, node:http 0.4 (bench:hosted-s3's client column, docs/benchmarks.md),
 * on the two cores that the server, the store and the database share. The raw S3 side's SDK is on
 * node:http too. A person's browser spends its own machine's CPU, not the server's.
 */
const bodyAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/** POSTs `body` to `url` as an image; the answer's JSON (an error for any status but 2xx). */
export function postImage(url: string, authorization: string, body: Buffer): Promise<any> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'image/jpeg', 'content-length': String(body.length), ...(authorization ? { authorization } : {}) };
    const req = http.request(url, { method: 'POST', agent: bodyAgent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) reject(new Error(`${status} ${text}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** GETs `url` and reads the body to its end, handing each chunk to `onChunk`; the bytes read (an error for any status but 200). */
export function getBody(url: string, onChunk: (chunk: Buffer) => void = () => undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: bodyAgent }, (res) => {
        let bytes = 0;
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`${url.replace(/\?.*/, '')} answered ${res.statusCode}`));
          return;
        }
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          onChunk(c);
        });
        res.on('error', reject);
        res.on('end', () => resolve(bytes));
      })
      .on('error', reject);
  });
}

/** The SHA-256 (hex) of each body read from `urls`, 16 at a time, hashed as it arrives: untimed checks of what a phase answered. */
export async function hashesOf(urls: string[]): Promise<string[]> {
  const hashes: string[] = [];
  await timed(urls, 16, async (u) => {
    const hash = createHash('sha256');
    const n = await getBody(u, (c) => hash.update(c));
    hashes.push(hash.digest('hex'));
    return n;
  });
  return hashes;
}

/**
 * Ends the body transfers' idle keep-alive sockets, keeping the pool usable: before a phase that follows
 * seconds of quiet, a socket the server is closing for its keep-alive timeout would fail the phase's first
 * request with ECONNRESET or EPIPE.
 */
export function dropIdleBodySockets(): void {
  for (const sockets of Object.values(bodyAgent.freeSockets)) for (const s of sockets ?? []) s.destroy();
}

/** Ends the body transfers' idle keep-alive sockets, so that a bench can exit. */
export const closeBodySockets = () => bodyAgent.destroy();

export type Api = (method: string, p: string, body?: unknown, auth?: string) => Promise<any>;

/** The tenant API of the server at `base`, with `key` unless told otherwise. */
export const tenantApi =
  (base: string, key: string): Api =>
  async (method, p, body, auth = key) =>
    json(await fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }));

export type OpenedPage = { id: string; credential: string };

/** A live T1 session opened the way the hosted page opens it: its credential, then start. */
export async function openPage(base: string, api: Api, key?: string): Promise<OpenedPage> {
  const s = await api('POST', '/v1/verify/sessions', { flow_id: 'default', tier: 'T1' }, key);
  const token = new URL(s.hosted_url).searchParams.get('token');
  const { credential } = await json(await fetch(`${base}/v1/hosted/sessions/${s.id}/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) }));
  await api('POST', `/v1/hosted/sessions/${s.id}/start`, undefined, credential);
  return { id: s.id as string, credential: credential as string };
}

/** Body `i` of a session's pair: even a passport data page, odd a selfie. */
export const artifactQuery = (i: number) => (i % 2 === 0 ? 'class=id_document_image&side=data_page' : 'class=selfie_image');

/** Submits every page and waits for each session's evidence URLs (engines off: `manual_review`), pointed at `base`. */
export async function evidenceUrlsAfterSubmit(base: string, api: Api, pages: OpenedPage[]): Promise<string[]> {
  for (const page of pages) await api('POST', `/v1/hosted/sessions/${page.id}/submit`, undefined, page.credential);
  const urls: string[] = [];
  for (const page of pages) {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const s = await api('GET', `/v1/verify/sessions/${page.id}`);
      if (s.status === 'manual_review') {
        urls.push(...(s.result.evidence_urls as string[]).map((u) => u.replace(/^https?:\/\/[^/]+/, base)));
        break;
      }
      if (Date.now() > deadline) throw new Error(`session ${page.id} is still ${s.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return urls;
}
