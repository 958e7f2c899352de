/**
 * `npm run bench:public-route`: where the server's cheapest public route (GATEWAY_KEYS_PATH: no credential,
 * no database) spends its time, against bare express processes built up one of the server's steps at a time
 * (bench/staged-express-server.ts: empty answer, the same JSON, + request id and access log, + metrics).
 * Every process runs at once, driven in turn by autocannon (this process, 16 connections, BENCH_SECONDS per
 * run, ROUNDS interleaved rounds, medians); each reports req/s and its CPU per request (/proc/<pid>/stat,
 * less its idle background), the figure that holds whatever else the machine runs.
 */
import autocannon from 'autocannon';
import { testEnv } from '../test/helpers/test-server';
import { GATEWAY_KEYS_PATH } from '../rest-adapter/gateway-proxy.router';
import { median, startProcess, type Started } from './bench-support';
import { cpuSeconds } from './process-cpu';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

type Case = { name: string; started: Started; idlePerSecond: number; runs: { rps: number; cpuUs: number }[] };

async function idleCpuPerSecond(pid: number): Promise<number> {
  const before = cpuSeconds(pid);
  await new Promise((r) => setTimeout(r, 3000));
  return (cpuSeconds(pid) - before) / 3;
}

async function main() {
  const server = await startProcess('app/main.js', testEnv({ RATE_LIMIT_ENABLED: 'false' }));
  const started: Started[] = [server];
  try {
    const answer = await (await fetch(`${server.url}${GATEWAY_KEYS_PATH}`)).text();
    const cases: Case[] = [];
    for (const stage of ['empty', 'json', 'context', 'metrics']) {
      const s = await startProcess('bench/staged-express-server.js', { STAGE: stage, ANSWER: answer });
      started.push(s);
      cases.push({ name: `bare express: ${stage}`, started: s, idlePerSecond: 0, runs: [] });
    }
    cases.push({ name: 'the server', started: server, idlePerSecond: 0, runs: [] });
    for (const c of cases) {
      c.idlePerSecond = await idleCpuPerSecond(c.started.proc.pid!);
      await autocannon({ url: `${c.started.url}${GATEWAY_KEYS_PATH}`, connections: 16, duration: 2 }); // JIT
    }
    for (let i = 0; i < ROUNDS; i++) {
      for (const c of cases) {
        const pid = c.started.proc.pid!;
        const cpu0 = cpuSeconds(pid);
        const t0 = performance.now();
        const r = await autocannon({ url: `${c.started.url}${GATEWAY_KEYS_PATH}`, connections: 16, duration: SECONDS });
        const seconds = (performance.now() - t0) / 1000;
        if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${c.name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
        c.runs.push({ rps: r.requests.average, cpuUs: Math.round(((cpuSeconds(pid) - cpu0 - c.idlePerSecond * seconds) * 1e6) / Math.max(1, r.requests.total)) });
      }
    }
    console.log('| case | req/s (median) | rounds | CPU µs per request (median) | rounds |');
    console.log('|---|---|---|---|---|');
    for (const c of cases) {
      const rps = c.runs.map((r) => Math.round(r.rps));
      const cpu = c.runs.map((r) => r.cpuUs);
      console.log(`| ${c.name} | ${median(rps)} | ${rps.join(' / ')} | ${median(cpu)} | ${cpu.join(' / ')} |`);
    }
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
