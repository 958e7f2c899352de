/**
 * Rate limiting (docs/benchmarks.md), two parts, loopback only:
 *
 * 1. Throughput of GET /v1/verify/sessions/{id} with limiting off (the in-run baseline), with the
 *    Memory store and with the Redis store, interleaved over ROUNDS rounds in a rotating order; the
 *    verdict is the median of the per-round ratios to `off` (the machine's speed drifts by minutes).
 *    The tenant has a huge verify_read override so no request is refused: only metering is measured.
 * 2. Accuracy: two instances on one Redis, one key, ACCURACY_REQUESTS requests spread evenly over
 *    ACCURACY_SECONDS (default 10,000 over 180 s), alternating instances. For
 *    every admitted request the admits in the 60 s ending there are counted against the limit.
 *
 *   npm run bench:rate-limit
 *   RL_BENCH_SECONDS=6 RL_ROUNDS=11 RL_ACCURACY_SECONDS=180 RL_ACCURACY_REQUESTS=10000 REDIS_URL=redis://127.0.0.1:6379
 *   RL_ROUNDS=0 skips part 1, RL_ACCURACY_SECONDS=0 skips part 2.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { cliJson, median, startProcess, Started } from './bench-support';

const SECONDS = Number(process.env.RL_BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.RL_ROUNDS ?? 11);
const CONNECTIONS = Number(process.env.RL_CONNECTIONS ?? 10);
const ACCURACY_SECONDS = Number(process.env.RL_ACCURACY_SECONDS ?? 180);
const ACCURACY_REQUESTS = Number(process.env.RL_ACCURACY_REQUESTS ?? 10_000);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const VERIFY_READ_LIMIT = 600;

type Server = Started;

const baseEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'rl-bench-')),
  LOG_LEVEL: 'warn',
  PORT: '0',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
};

/** Logs go to a file (see bench-support): a drained stdout pipe would be measured along with the limiter. */
function startServer(extra: NodeJS.ProcessEnv): Promise<Server> {
  return startProcess('app/main.js', { ...baseEnv, LOG_LEVEL: 'info', ...extra });
}

async function createSession(server: Server, key: string): Promise<string> {
  const r = await fetch(`${server.url}/v1/verify/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ flow_id: 'default', tier: 'T1' }),
  });
  if (r.status !== 201) throw new Error(`create failed: ${r.status}`);
  return ((await r.json()) as { id: string }).id;
}

type Mode = 'off' | 'memory' | 'redis';
type Run = { rps: number; p99: number; non2xx: number; limited: boolean; cpuUsPerRequest: number };

/** CPU time (user + system) the server process has used, in microseconds; Linux /proc only. */
function cpuMicros(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    return (ticks * 1e6) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

async function throughput(server: Server, key: string, id: string): Promise<Run> {
  const opts = { url: `${server.url}/v1/verify/sessions/${id}`, connections: CONNECTIONS, headers: { authorization: `Bearer ${key}` } };
  await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, pools, Redis connection
  const cpuBefore = cpuMicros(server.proc.pid!);
  const r = await autocannon({ ...opts, duration: SECONDS });
  const cpuUsPerRequest = (cpuMicros(server.proc.pid!) - cpuBefore) / r.requests.total;
  const head = await fetch(opts.url, { headers: opts.headers });
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, limited: head.headers.get('ratelimit-limit') !== null, cpuUsPerRequest };
}

async function throughputPart(): Promise<void> {
  const setup = await startServer({ RATE_LIMIT_ENABLED: 'false' });
  const t = cliJson(baseEnv, ['tenant', 'create', '--name', 'bench']);
  const key = t.test_api_key as string;
  cliJson(baseEnv, ['limits', 'set', '--tenant', t.tenant_id as string, '--bucket', 'verify_read', '--limit', '1000000000']);
  const id = await createSession(setup, key);
  await setup.stop();

  const modes: [Mode, NodeJS.ProcessEnv][] = [
    ['off', { RATE_LIMIT_ENABLED: 'false' }],
    ['memory', { RATE_LIMIT_ENABLED: 'true' }],
    ['redis', { RATE_LIMIT_ENABLED: 'true', REDIS_URL, RATE_LIMIT_REDIS_PREFIX: `rl-bench-${randomBytes(4).toString('hex')}` }],
  ];
  const runs: Record<Mode, Run[]> = { off: [], memory: [], redis: [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Each round measures all three modes back to back, starting with a different one each time,
    // so a drift in the machine's speed falls on every mode alike.
    for (let i = 0; i < modes.length; i++) {
      const [name, env] = modes[(round + i) % modes.length];
      const server = await startServer(env);
      try {
        const r = await throughput(server, key, id);
        console.log(`  round ${round + 1} ${name.padEnd(6)} ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms, server CPU ${r.cpuUsPerRequest.toFixed(0)} us/request, non-2xx ${r.non2xx}, headers ${r.limited ? 'yes' : 'no'}`);
        if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} non-2xx responses; the benchmark must not hit the limit`);
        if ((name !== 'off') !== r.limited) throw new Error(`${name}: ratelimit headers ${r.limited ? 'present' : 'missing'}`);
        runs[name].push(r);
      } finally {
        await server.stop();
      }
    }
  }
  /** Per round: throughput relative to that round's `off`, and `off`'s CPU per request relative to the mode's. */
  const ratios = (name: Mode) => ({
    rps: median(runs[name].map((r, i) => r.rps / runs.off[i].rps)),
    cpu: median(runs[name].map((r, i) => runs.off[i].cpuUsPerRequest / r.cpuUsPerRequest)),
  });
  console.log(`\nGET /v1/verify/sessions/{id}, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s; medians of the per-round ratios to limiting off:`);
  for (const [name] of modes) {
    const r = ratios(name);
    console.log(
      `  ${name.padEnd(6)} ${median(runs[name].map((x) => x.rps)).toFixed(0).padStart(6)} req/s  p99 ${String(median(runs[name].map((x) => x.p99))).padStart(3)} ms` +
        `  throughput ratio ${r.rps.toFixed(3)} (cost ${((1 - r.rps) * 100).toFixed(1)} %)` +
        `  | server CPU ${median(runs[name].map((x) => x.cpuUsPerRequest)).toFixed(0)} us/request, CPU-bound ratio ${r.cpu.toFixed(3)} (cost ${((1 - r.cpu) * 100).toFixed(1)} %)`,
    );
  }
  const redis = ratios('redis');
  const verdict = (ratio: number) => `${((1 - ratio) * 100).toFixed(1)} % (${1 - ratio < 0.05 ? 'met' : 'NOT met'})`;
  console.log(`  goal: Redis cost < 5 % -> throughput ${verdict(redis.rps)}, server CPU per request ${verdict(redis.cpu)}`);
  console.log('  (wall-clock throughput shares the 2 cores with the load generator, PostgreSQL and Redis; CPU per request is the steadier figure)');
}

async function accuracyPart(): Promise<void> {
  const env = { RATE_LIMIT_ENABLED: 'true', REDIS_URL, RATE_LIMIT_REDIS_PREFIX: `rl-acc-${randomBytes(4).toString('hex')}` };
  const a = await startServer(env);
  const b = await startServer(env);
  try {
    const t = cliJson(baseEnv, ['tenant', 'create', '--name', 'accuracy']);
    const key = t.test_api_key as string;
    const id = await createSession(a, key);
    const gap = (ACCURACY_SECONDS * 1000) / ACCURACY_REQUESTS;
    console.log(`\naccuracy: 2 instances on one Redis, ${ACCURACY_REQUESTS} requests over ${ACCURACY_SECONDS} s (${(1000 / gap).toFixed(1)}/s), verify_read limit ${VERIFY_READ_LIMIT}`);
    const admitted: number[] = [];
    const admittedDone: number[] = [];
    let refused = 0;
    let errors = 0;
    const start = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < ACCURACY_REQUESTS; i++) {
      const due = start + i * gap;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const server = i % 2 ? b : a;
      const sentAt = Date.now();
      inflight.push(
        fetch(`${server.url}/v1/verify/sessions/${id}`, { headers: { authorization: `Bearer ${key}` } }).then(
          async (r) => {
            await r.arrayBuffer();
            if (r.status === 200) {
              admitted.push(sentAt);
              admittedDone.push(Date.now());
            }
            else if (r.status === 429) refused++;
            else errors++;
          },
          () => {
            errors++;
          },
        ),
      );
    }
    await Promise.all(inflight);
    // The server decided each request between its send and its answer; both clocks are shown.
    const bySent = windows(admitted);
    const byDone = windows(admittedDone);
    console.log(`  admitted ${admitted.length}, refused ${refused}, errors ${errors}`);
    console.log(`  busiest sliding 60 s window: ${bySent.max} admits by send time, ${byDone.max} by answer time (limit ${VERIFY_READ_LIMIT})`);
    console.log(`  windows over the limit: ${bySent.over} (send time), ${byDone.over} (answer time), of ${admitted.length}`);
    console.log(`  goal: 0 windows over the limit -> ${bySent.over === 0 && byDone.over === 0 ? 'met' : 'NOT met'}`);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

/** For each admit, the admits in the 60 s window ending at it (every sliding window that holds the most). */
function windows(times: number[]): { max: number; over: number } {
  const t = [...times].sort((x, y) => x - y);
  let lo = 0;
  let max = 0;
  let over = 0;
  for (let hi = 0; hi < t.length; hi++) {
    while (t[lo] <= t[hi] - 60_000) lo++;
    const n = hi - lo + 1;
    max = Math.max(max, n);
    if (n > VERIFY_READ_LIMIT) over++;
  }
  return { max, over };
}

async function main(): Promise<void> {
  console.log('rate-limit benchmark');
  if (ROUNDS > 0) await throughputPart();
  if (ACCURACY_SECONDS > 0) await accuracyPart();
  fs.rmSync(baseEnv.DATA_DIR!, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
