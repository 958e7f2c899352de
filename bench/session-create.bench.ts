/**
 * `npm run bench:session-create`: `POST /v1/verify/sessions` with a test key through the built server
 * started as `npm start` starts it, 16 connections, rate limits off, against a bare express + pg route
 * doing the writes a creation cannot avoid (bench/session-create-baseline.ts: the session row and its
 * outbox row in one transaction) on the same database, in the same run. Goal (issue 44): at least
 * 0.6x the baseline's throughput, on PostgreSQL and on the embedded database.
 *
 * ROUNDS interleaved rounds (default 3) of BENCH_SECONDS each (default 5); the verdict is the median
 * of the per-round ratios. Beside each throughput, the CPU each process spent per created session
 * (/proc/<pid>/stat): the server or baseline, and the database (the embedded database's own process,
 * or the PostgreSQL backends serving the bench's database), which this shared machine's load moves little.
 * The server runs with WORKER_ENABLED=false: a test-mode session queues its three clock jobs (D4) in
 * the creating transaction, and running them seconds later is not creation's cost.
 * DATABASE_URL picks PostgreSQL (the bench's own database; it is emptied of the bench's sessions
 * after), BENCH_STORES=pg,embedded (default both; pg needs DATABASE_URL or uses the local `test` database).
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import { Client, type ClientConfig } from 'pg';
import { testEnv } from '../test/helpers/test-server';
import { cliJson, DEFAULT_DATABASE_URL, median, startProcess, type Started } from './bench-support';
import { childOf, cpuSeconds } from './process-cpu';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const STORES = (process.env.BENCH_STORES ?? 'pg,embedded').split(',');

/** The processes whose CPU a case is charged: the HTTP process and the database's. */
type Target = { name: string; url: string; headers: Record<string, string>; pid: number; databasePids: () => Promise<number[]> };
type Row = { name: string; rps: number; p50: number; p99: number; bad: number; httpUs: number; dbUs: number };

async function cpuOf(pids: number[]): Promise<Map<number, number>> {
  return new Map(pids.map((p) => [p, cpuSeconds(p)]));
}

async function run(t: Target): Promise<Row> {
  const dbBefore = await cpuOf(await t.databasePids());
  const httpBefore = cpuSeconds(t.pid);
  const r = await autocannon({
    url: t.url,
    method: 'POST',
    headers: { ...t.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ flow_id: 'default', tier: 'T1', reference_id: 'bench-create' }),
    connections: 16,
    duration: SECONDS,
  });
  const httpAfter = cpuSeconds(t.pid);
  let db = 0;
  for (const pid of await t.databasePids()) db += cpuSeconds(pid) - (dbBefore.get(pid) ?? 0); // a backend opened meanwhile counts from 0
  const n = Math.max(1, r['2xx']);
  return {
    name: t.name,
    rps: r['2xx'] / SECONDS,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.errors + r.timeouts + r.non2xx,
    httpUs: Math.round(((httpAfter - httpBefore) * 1e6) / n),
    dbUs: Math.round((db * 1e6) / n),
  };
}

async function benchStore(store: 'pg' | 'embedded'): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const env = testEnv({ RATE_LIMIT_ENABLED: 'false', WORKER_ENABLED: 'false', LOG_LEVEL: 'warn' });
  // testEnv passes a test run's DATABASE_URL and job schema through; this bench picks its store itself.
  delete env.JOB_SCHEMA;
  delete env.DATABASE_URL;
  if (store === 'pg') env.DATABASE_URL = databaseUrl;
  const server = await startProcess('app/main.js', env);
  let baseline: Started | null = null;
  const dbConfig: ClientConfig = store === 'pg' ? { connectionString: databaseUrl } : { host: env.DATA_DIR, port: 5432, user: 'postgres', database: 'postgres' };
  const sql = new Client(dbConfig);
  try {
    const key = (cliJson(env, ['tenant', 'create', '--name', 'bench-create']) as { test_api_key: string }).test_api_key;
    const headers = { authorization: `Bearer ${key}` };
    const first = await fetch(`${server.url}/v1/verify/sessions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ flow_id: 'default', tier: 'T1' }) });
    if (first.status !== 201) throw new Error(`create answered ${first.status}: ${await first.text()}`);
    const { id } = (await first.json()) as { id: string };
    await sql.connect();
    const { rows } = await sql.query<{ tenant_id: string; flow_id: string }>('SELECT tenant_id, flow_id FROM sessions WHERE id = $1', [id]);
    baseline = await startProcess('bench/session-create-baseline.js', {
      TENANT_ID: rows[0].tenant_id,
      FLOW_ID: rows[0].flow_id,
      ...(store === 'pg' ? { DATABASE_URL: databaseUrl } : { DB_SOCKET_DIR: env.DATA_DIR }),
    });
    const embeddedPid = store === 'embedded' ? childOf(server.proc.pid!) : null;
    const database = await sql.query<{ datname: string }>('SELECT current_database() AS datname');
    const databasePids = async (): Promise<number[]> => {
      if (embeddedPid !== null) return [embeddedPid];
      const r = await sql.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database.rows[0].datname]);
      return r.rows.map((x) => x.pid);
    };
    const ours: Target = { name: 'POST /v1/verify/sessions', url: `${server.url}/v1/verify/sessions`, headers, pid: server.proc.pid!, databasePids };
    const bare: Target = { name: 'baseline: express + pg, 2 INSERTs in a transaction', url: `${baseline.url}/sessions`, headers: {}, pid: baseline.proc.pid!, databasePids };
    // JIT, pools, the key cache.
    await run(ours);
    await run(bare);
    const rows2: Row[] = [];
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const b = await run(bare);
      const o = await run(ours);
      rows2.push({ ...b, name: `round ${round} ${b.name}` }, { ...o, name: `round ${round} ${o.name}` });
      ratios.push(o.rps / b.rps);
      cpuRatios.push((o.httpUs + o.dbUs) / (b.httpUs + b.dbUs));
    }
    console.log(`\n### ${store === 'pg' ? 'PostgreSQL' : 'embedded database (PGlite in its own process)'}\n`);
    console.log('| case | created/s | p50 ms | p99 ms | CPU µs per session: HTTP process | database | errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of rows2) console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.httpUs} | ${r.dbUs} | ${r.bad} |`);
    const med = (name: string, k: 'httpUs' | 'dbUs') => median(rows2.filter((r) => r.name.endsWith(name)).map((r) => r[k]));
    console.log(`\nserver / baseline throughput per round: ${ratios.map((x) => x.toFixed(2)).join(' ')} -> median ${median(ratios).toFixed(2)}x (goal >= 0.60)`);
    console.log(`median CPU µs per session: server ${med(ours.name, 'httpUs')} + database ${med(ours.name, 'dbUs')}; baseline ${med(bare.name, 'httpUs')} + database ${med(bare.name, 'dbUs')}; total CPU ratio per round ${cpuRatios.map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    await sql.end().catch(() => undefined);
    await Promise.all([server.stop(), baseline?.stop()]);
    fs.rmSync(env.DATA_DIR!, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (const store of STORES) await benchStore(store as 'pg' | 'embedded');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
