import { performance } from 'node:perf_hooks';
import { IdvClient } from '../clients/typescript/src';
import { cliJson, median, startProcess } from './bench-support';

/**
 * `npm run bench:client`: what the typed client (clients/typescript) costs a tenant backend over a bare
 * `fetch` + `JSON.parse`, through the built server (embedded database; `DATABASE_URL` for PostgreSQL).
 * Both read the same session with `GET /v1/verify/sessions/{id}`, CONCURRENCY calls in flight, in
 * BENCH_ROUNDS interleaved rounds of BENCH_SECONDS each; the verdict is the median of the per-round ratios.
 * Goal: client >= 0.9x the bare fetch's throughput (its openapi-fetch layer, the retry wrapper's request copy
 * and the typed error checks are all it adds).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

type Result = { rps: number; p50: number; p99: number };

async function run(call: () => Promise<unknown>, seconds: number): Promise<Result> {
  const latencies: number[] = [];
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
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { RATE_LIMIT_ENABLED: 'false', DATA_DIR: `/tmp/bench-client-${process.pid}` };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
  const server = await startProcess('src/main.js', env);
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
    for (let round = 1; round <= ROUNDS; round++) {
      const b = await run(bare, SECONDS);
      const c = await run(typed, SECONDS);
      ratios.push(c.rps / b.rps);
      rows.push(`| ${round} | ${b.rps.toFixed(0)} | ${b.p50.toFixed(2)} | ${b.p99.toFixed(2)} | ${c.rps.toFixed(0)} | ${c.p50.toFixed(2)} | ${c.p99.toFixed(2)} | ${(c.rps / b.rps).toFixed(2)} |`);
    }
    console.log(`GET /v1/verify/sessions/{id}, ${CONCURRENCY} in flight, ${SECONDS} s per case, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded database'}`);
    console.log('| round | fetch req/s | fetch p50 ms | fetch p99 ms | client req/s | client p50 ms | client p99 ms | client / fetch |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
    console.log(`client / bare fetch per round: ${ratios.map((x) => x.toFixed(2)).join(' ')} -> median ${median(ratios).toFixed(2)}x (goal >= 0.90)`);
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
