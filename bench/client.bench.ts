import { performance } from 'node:perf_hooks';
import { IdvClient } from '../clients/typescript/src';
import { cliJson, median, startProcess } from './bench-support';

/**
 * `npm run bench:client`: what the typed client (clients/typescript) costs a tenant backend over a bare
 * `fetch` + `JSON.parse`, through the built server (embedded database; `DATABASE_URL` for PostgreSQL).
 * Both read the same session with `GET /v1/verify/sessions/{id}`, CONCURRENCY calls in flight, in
 * BENCH_ROUNDS interleaved rounds of BENCH_SECONDS each (the order alternates, so drift of this shared machine
 * does not favour one side); the verdict is the median of the per-round ratios. Two figures: throughput
 * (bounded by the server, so it shows only a large client cost) and the calling process's CPU per call (what the
 * client's openapi-fetch layer, the retry wrapper's request copy and the typed error checks add).
 * Goals: client >= 0.9x the bare fetch's throughput; client CPU per call <= 2x the bare fetch's.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

/** Throughput and latency, and the bench process's own CPU per call: what the caller pays, apart from the server. */
type Result = { rps: number; p50: number; p99: number; cpuUsPerCall: number };

async function run(call: () => Promise<unknown>, seconds: number): Promise<Result> {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), cpuUsPerCall: (used.user + used.system) / latencies.length };
}

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { RATE_LIMIT_ENABLED: 'false', DATA_DIR: `/tmp/bench-client-${process.pid}` };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
  const server = await startProcess('app/main.js', env);
  try {
    const tenant = cliJson({ ...env, PORT: new URL(server.url).port }, ['tenant', 'create', '--name', 'bench-client']);
    const key = tenant.test_api_key as string;
    const client = new IdvClient({ apiKey: key, baseUrl: server.url });
    const { id } = await client.sessions.create({ flow_id: 'default', tier: 'T2', reference_id: 'bench' });
    const url = `${server.url}/v1/verify/sessions/${id}`;
    const headers = { authorization: `Bearer ${key}` };
    const bare = async () => {
      const r = await fetch(url, { headers });
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return r.json();
    };
    const typed = () => client.sessions.get(id);

    await run(bare, 2);
    await run(typed, 2);
    const rows: string[] = [];
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      let b: Result;
      let c: Result;
      if (round % 2) {
        b = await run(bare, SECONDS);
        c = await run(typed, SECONDS);
      } else {
        c = await run(typed, SECONDS);
        b = await run(bare, SECONDS);
      }
      ratios.push(c.rps / b.rps);
      cpuRatios.push(c.cpuUsPerCall / b.cpuUsPerCall);
      rows.push(
        `| ${round} | ${b.rps.toFixed(0)} | ${b.p50.toFixed(2)} | ${b.p99.toFixed(2)} | ${b.cpuUsPerCall.toFixed(0)} | ${c.rps.toFixed(0)} | ${c.p50.toFixed(2)} | ${c.p99.toFixed(2)} | ${c.cpuUsPerCall.toFixed(0)} |`,
      );
    }
    console.log(`GET /v1/verify/sessions/{id}, ${CONCURRENCY} in flight, ${SECONDS} s per case, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded database'}`);
    console.log('| round | fetch req/s | fetch p50 ms | fetch p99 ms | fetch CPU µs/call | client req/s | client p50 ms | client p99 ms | client CPU µs/call |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
    console.log(`throughput, client / bare fetch per round: ${ratios.map((x) => x.toFixed(2)).join(' ')} -> median ${median(ratios).toFixed(2)}x (goal >= 0.90)`);
    console.log(`caller CPU per call, client / bare fetch per round: ${cpuRatios.map((x) => x.toFixed(2)).join(' ')} -> median ${median(cpuRatios).toFixed(2)}x (goal <= 2.00)`);
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
