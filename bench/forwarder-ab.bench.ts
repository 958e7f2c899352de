/**
 * `node dist/bench/forwarder-ab.bench.js <gateway-forwarder.js of build A> [<of build B>]`: the gateway's
 * forwarder alone (bench/bare-forwarder-server.ts, one process per build, no authentication)
 * against the bench upstream (bench/gateway-upstream.ts), driven in turn by autocannon (16 connections,
 * BENCH_SECONDS per run, ROUNDS interleaved rounds): req/s and the CPU each proxy process spends per request
 * (/proc/<pid>/stat, less its idle background), medians. B defaults to this build's forwarder. What the
 * server-level bench (`npm run bench:gateway`) cannot resolve on a loaded machine, a difference of 10-20 µs, shows here.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { median, startProcess, type Started } from './bench-support';
import { cpuSeconds } from './process-cpu';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

async function main() {
  const builds = [path.resolve(process.argv[2]), path.resolve(process.argv[3] ?? `${__dirname}/../http/gateway-forwarder.js`)];
  const upstreamProc = spawn(process.execPath, [`${__dirname}/gateway-upstream.js`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => readline.createInterface({ input: upstreamProc.stdout! }).once('line', resolve));
  const upstream = `http://127.0.0.1:${port}`;
  const proxies: Started[] = [];
  try {
    for (const forwarder of builds) proxies.push(await startProcess('bench/bare-forwarder-server.js', { FORWARDER: forwarder, UPSTREAM: upstream }));
    const idle: number[] = [];
    for (const p of proxies) {
      const before = cpuSeconds(p.proc.pid!);
      await new Promise((r) => setTimeout(r, 2000));
      idle.push((cpuSeconds(p.proc.pid!) - before) / 2);
      await autocannon({ url: `${p.url}/v1/social/ping`, connections: 16, duration: 3 }); // JIT, the pool's connections
    }
    const runs = builds.map(() => [] as { rps: number; cpuUs: number; upstreamUs: number }[]);
    for (let i = 0; i < ROUNDS; i++) {
      for (const [k, p] of proxies.entries()) {
        const cpu0 = cpuSeconds(p.proc.pid!);
        const up0 = cpuSeconds(upstreamProc.pid!);
        const t0 = performance.now();
        const r = await autocannon({ url: `${p.url}/v1/social/ping`, connections: 16, duration: SECONDS });
        const seconds = (performance.now() - t0) / 1000;
        if (r.errors + r.timeouts + r.non2xx > 0) console.error(`${builds[k]}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
        const n = Math.max(1, r.requests.total);
        runs[k].push({ rps: r.requests.average, cpuUs: Math.round(((cpuSeconds(p.proc.pid!) - cpu0 - idle[k] * seconds) * 1e6) / n), upstreamUs: Math.round(((cpuSeconds(upstreamProc.pid!) - up0) * 1e6) / n) });
      }
    }
    console.log('| forwarder | req/s (median) | rounds | proxy CPU µs per request (median) | rounds | upstream CPU µs per request |');
    console.log('|---|---|---|---|---|---|');
    for (const [k, b] of builds.entries()) {
      const rps = runs[k].map((r) => Math.round(r.rps));
      const cpu = runs[k].map((r) => r.cpuUs);
      console.log(`| ${b} | ${median(rps)} | ${rps.join(' / ')} | ${median(cpu)} | ${cpu.join(' / ')} | ${median(runs[k].map((r) => r.upstreamUs))} |`);
    }
  } finally {
    await Promise.all(proxies.map((p) => p.stop()));
    upstreamProc.kill('SIGTERM');
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
