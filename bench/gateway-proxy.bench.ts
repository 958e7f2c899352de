/**
 * `npm run bench:gateway`: the gateway proxy (docs/decisions.md D18) against a local upstream that answers
 * at once, through the built server started as `npm start` starts it (`node dist/app/main.js`,
 * configured by env, logs to a file). Three processes that do not share an event loop: the load
 * generator (autocannon, this process, a fixed connection count), the upstream
 * (bench/gateway-upstream.ts) and the server (with the embedded database, its own child process).
 * - latency, one connection: p50 / p99 overhead over calling the upstream directly (goal: at most 2 / 10 ms);
 * - throughput, 16 connections, ROUNDS interleaved rounds (median): the gateway against the upstream
 *   called directly (goal: at least 0.7x), the server's own authenticated answer (the same
 *   authentication, metering and routing, answered 404 without proxying) and its cheapest public route
 *   (no credential, no database), so each share of the gap is shown;
 * - the CPU each process spent per request in each case (/proc/<pid>/stat), from which the cores a
 *   gateway tier would need for 0.7x follow independently of how loaded this machine is;
 * - 20 MiB answers (then one 100 MiB answer) streamed through: the server's RSS growth (goal: under +30 MB).
 * Rate limits are off (the social_read bucket allows 200 a minute); authentication is on.
 * BENCH_SECONDS per run (default 5), ROUNDS (default 3).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { testEnv } from '../test/helpers/test-server';
import { cliJson, median, startProcess } from './bench-support';
import { childOf, cpuSeconds, rssMb } from './process-cpu';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

type Procs = { server: number; database: number | null; upstream: number };
type Cpu = { server: number; database: number; upstream: number; loadGenerator: number };
type Run = { name: string; rps: number; p50: number; p99: number; requests: number; bad: number; cpuUsPerRequest: Cpu };

function cpuNow(p: Procs): Cpu {
  const self = process.cpuUsage();
  return { server: cpuSeconds(p.server), database: cpuSeconds(p.database), upstream: cpuSeconds(p.upstream), loadGenerator: (self.user + self.system) / 1e6 };
}


async function startUpstream(): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [`${__dirname}/gateway-upstream.js`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => readline.createInterface({ input: proc.stdout! }).once('line', resolve));
  return { url: `http://127.0.0.1:${port}`, proc };
}

/**
 * CPU per second each process spends with no request at all (the job queue's polling, timers): subtracted
 * from every run, so that a slow run is not charged the background work of its longer seconds.
 */
async function backgroundCpu(procs: Procs): Promise<Cpu> {
  const before = cpuNow(procs);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  const after = cpuNow(procs);
  const s = (performance.now() - t0) / 1000;
  return { server: (after.server - before.server) / s, database: (after.database - before.database) / s, upstream: (after.upstream - before.upstream) / s, loadGenerator: 0 };
}

let background: Cpu = { server: 0, database: 0, upstream: 0, loadGenerator: 0 };

async function run(name: string, procs: Procs, opts: autocannon.Options, expect2xx = true): Promise<Run> {
  const before = cpuNow(procs);
  const t0 = performance.now();
  const r = await autocannon({ connections: 16, duration: SECONDS, ...opts });
  const after = cpuNow(procs);
  const seconds = (performance.now() - t0) / 1000;
  const n = Math.max(1, r.requests.total);
  const us = (k: keyof Cpu) => Math.max(0, Math.round(((after[k] - before[k] - background[k] * seconds) * 1e6) / n));
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    bad: r.errors + r.timeouts + (expect2xx ? r.non2xx : 0),
    cpuUsPerRequest: { server: us('server'), database: us('database'), upstream: us('upstream'), loadGenerator: us('loadGenerator') },
  };
}

/** The middle round of each case, by req/s. */
function medianRun(runs: Run[]): Run {
  const m = median(runs.map((r) => r.rps));
  return runs.reduce((best, r) => (Math.abs(r.rps - m) < Math.abs(best.rps - m) ? r : best));
}

function printRuns(rows: Run[]): void {
  console.log('| case | req/s | p50 ms | p99 ms | CPU µs per request: server | database | upstream | load generator | errors |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const c = r.cpuUsPerRequest;
    console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${c.server} | ${c.database} | ${c.upstream} | ${c.loadGenerator} | ${r.bad} |`);
  }
}

async function streamGrowth(pid: number, url: string, headers: Record<string, string>, mib: number, times: number): Promise<number> {
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
  for (let i = 0; i < times; i++) {
    const r = await fetch(`${url}/v1/social/big?mib=${mib}`, { headers });
    let bytes = 0;
    for await (const c of r.body!) bytes += (c as Uint8Array).length;
    if (bytes !== mib * 1024 * 1024) throw new Error(`streamed ${bytes} bytes, not ${mib} MiB`);
  }
  clearInterval(sampler);
  return Math.round(peak - before);
}

async function main() {
  const upstream = await startUpstream();
  const env = testEnv({ SOCIAL_UPSTREAM_URL: upstream.url, RATE_LIMIT_ENABLED: 'false' });
  const server = await startProcess('app/main.js', env);
  try {
    const key = (cliJson(env, ['tenant', 'create', '--name', 'bench-gateway']) as { test_api_key: string }).test_api_key;
    const procs: Procs = { server: server.proc.pid!, database: childOf(server.proc.pid!), upstream: upstream.proc.pid! };
    const headers = { authorization: `Bearer ${key}` };
    const direct = { url: `${upstream.url}/v1/social/ping` };
    const gateway = { url: `${server.url}/v1/social/ping`, headers };
    const own404 = { url: `${server.url}/v1/verify/nothing`, headers };
    const publicRoute = { url: `${server.url}/v1/.well-known/gateway-keys` };
    for (const [c, status] of [[gateway, 200], [own404, 404], [publicRoute, 200]] as const) {
      const r = await fetch(c.url, { headers: 'headers' in c ? c.headers : {} });
      if (r.status !== status) throw new Error(`${c.url} answered ${r.status}, not ${status}: ${await r.text()}`);
    }
    background = await backgroundCpu(procs);
    // JIT, kept-alive connections, the key cache.
    await autocannon({ ...gateway, connections: 16, duration: 3 });
    await autocannon({ ...own404, connections: 16, duration: 1 });

    const d1 = await run('direct, 1 connection', procs, { ...direct, connections: 1 });
    const g1 = await run('gateway, 1 connection', procs, { ...gateway, connections: 1 });
    const cases = { direct: [] as Run[], gateway: [] as Run[], own404: [] as Run[], publicRoute: [] as Run[] };
    for (let i = 0; i < ROUNDS; i++) {
      cases.direct.push(await run('direct (upstream alone), 16 connections', procs, direct));
      cases.gateway.push(await run('gateway, 16 connections', procs, gateway));
      cases.own404.push(await run("server's own authenticated 404, 16 connections", procs, own404, false));
      cases.publicRoute.push(await run('server, public route (gateway keys, no credential), 16 connections', procs, publicRoute));
    }
    const d16 = medianRun(cases.direct);
    const g16 = medianRun(cases.gateway);
    const a16 = medianRun(cases.own404);
    const p16 = medianRun(cases.publicRoute);
    printRuns([d1, g1, d16, g16, a16, p16]);
    console.log(`rounds (req/s): ${Object.entries(cases).map(([k, runs]) => `${k} ${runs.map((r) => r.rps.toFixed(0)).join('/')}`).join('; ')}`);

    // One answer in RSS: the first 5 streams after the load runs, 5 more, then one 100 MiB answer.
    const pid = procs.server;
    const rssBefore = Math.round(rssMb(pid));
    const first = await streamGrowth(pid, server.url, headers, 20, 5);
    const again = await streamGrowth(pid, server.url, headers, 20, 5);
    const large = await streamGrowth(pid, server.url, headers, 100, 1);

    const ratio = (a: Run, b: Run) => Math.round((a.rps / b.rps) * 100) / 100;
    const gatewayCpu = g16.cpuUsPerRequest.server + g16.cpuUsPerRequest.database;
    console.log(
      JSON.stringify(
        {
          overheadMs: { p50: g1.p50 - d1.p50, p99: g1.p99 - d1.p99, goal: 'p50 <= 2, p99 <= 10' },
          throughputRatio: ratio(g16, d16),
          throughputGoal: '>= 0.7',
          ownAuthenticated404ToDirect: ratio(a16, d16),
          publicRouteToDirect: ratio(p16, d16),
          gatewayToOwnAuthenticated404: ratio(g16, a16),
          // The proxying alone: what the gateway costs the server beyond its own authenticated answer.
          proxyingCpuUsPerRequest: g16.cpuUsPerRequest.server - a16.cpuUsPerRequest.server,
          // With the upstream on its own core answering 1e6/upstreamUs req/s, a gateway tier at 0.7x of that
          // needs this many cores (server and database CPU per request), whatever else runs on this machine.
          coresForPointSevenX: Math.round(((0.7 * gatewayCpu) / Math.max(1, d16.cpuUsPerRequest.upstream)) * 10) / 10,
          stream: { rssBeforeMb: rssBefore, first5x20MiBGrowthMb: first, next5x20MiBGrowthMb: again, one100MiBGrowthMb: large, goal: '< 30' },
          backgroundCpuPercent: { server: Math.round(background.server * 100), database: Math.round(background.database * 100) },
          errors: [d1, g1, ...Object.values(cases).flat()].reduce((n, r) => n + r.bad, 0),
        },
        null,
        2,
      ),
    );
  } finally {
    await server.stop();
    upstream.proc.kill('SIGTERM');
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
