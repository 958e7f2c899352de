import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { cliJson, median, startProcess, type Started } from './bench-support';
import { rssMb } from './process-cpu';

/**
 * npm run bench:bulk-import — a 10,000-record import through the built server (docs/benchmarks.md,
 * "Bulk import"): the time from the 202 to every session created (the job `completed`), and the
 * server's RSS growth over the import, sampled every 50 ms from /proc. Baseline in the same run, on
 * the same server: single `POST /v1/verify/sessions` creates of the same records, 16 at a time,
 * BULK_BENCH_BASELINE_N (500) of them, extrapolated to 10,000. Goals (issue 28): embedded <= 15 s,
 * PostgreSQL <= 10 s, RSS growth <= 150 MB.
 *
 * Embedded always; PostgreSQL too when DATABASE_URL names a database of your own (the bench's
 * tenants stay in it; its job schema is dropped at the end). BULK_BENCH_ROUNDS (3) imports per
 * target, each into a fresh tenant; the median is the verdict.
 */
const N = Number(process.env.BULK_BENCH_N ?? 10_000);
const BASELINE_N = Number(process.env.BULK_BENCH_BASELINE_N ?? 500);
const ROUNDS = Number(process.env.BULK_BENCH_ROUNDS ?? 3);
const JOB_SCHEMA = 'pgboss_bench_bulk';
/** `live` (default) or `test`: a test key's sessions also queue their three test-mode jobs each (D4), and then run them. */
const MODE = process.env.BULK_BENCH_MODE === 'test' ? 'test' : 'live';
/** BULK_BENCH_EMAIL=1: every record carries an `email`, so the job also puts 10,000 mails in the outbox. */
const EMAIL = process.env.BULK_BENCH_EMAIL === '1';

type Round = { seconds: number; rssGrowthMb: number; postMs: number; mailSeconds: number | null };

const records = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ flow_id: 'default', tier: 'T1', reference_id: `${prefix}-${i}`, locale: i % 2 ? 'en-US' : 'de-DE', metadata: { customer: `c-${i}`, campaign: 'reverify-2026' }, ...(EMAIL ? { email: `${prefix}-${i}@example.com` } : {}) }));

async function importAndWait(server: Started, key: string, prefix: string, n: number, db: Client): Promise<Round> {
  const body = records(prefix, n).map((r) => JSON.stringify(r)).join('\n');
  const pid = server.proc.pid!;
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const t0 = performance.now();
  const res = await fetch(`${server.url}/v1/admin/bulk-import`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' }, body });
  const accepted = performance.now();
  if (res.status !== 202) throw new Error(`import answered ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const job = (await (await fetch(`${server.url}/v1/admin/bulk-import/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string; created: number };
    if (job.status === 'completed') {
      if (job.created !== n) throw new Error(`created ${job.created} of ${n}`);
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const done = performance.now();
  // With emails: until the last link is in the mail outbox (the job mails once every record has its outcome).
  let mailed: number | null = null;
  if (EMAIL) {
    for (;;) {
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM bulk_import_records WHERE import_id = $1 AND email_sealed IS NOT NULL`, [id]);
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    mailed = performance.now();
  }
  clearInterval(sampler);
  return { seconds: (done - accepted) / 1000, rssGrowthMb: peak - before, postMs: accepted - t0, mailSeconds: mailed === null ? null : (mailed - accepted) / 1000 };
}

/** BASELINE_N single creates of the same records, 16 in flight: seconds per 10,000. */
async function singleCreates(server: Started, key: string, prefix: string): Promise<number> {
  // The single create takes no `email` (mail is the import's own addition).
  const todo = records(prefix, BASELINE_N).map(({ email: _email, ...create }: { email?: string }) => create);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < todo.length) {
        const r = await fetch(`${server.url}/v1/verify/sessions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(todo[next++]) });
        if (r.status !== 201) throw new Error(`single create answered ${r.status}`);
        await r.arrayBuffer();
      }
    }),
  );
  return ((performance.now() - t0) / 1000) * (N / BASELINE_N);
}

async function benchTarget(name: string, databaseUrl: string | undefined, goalSeconds: number): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bulk-'));
  const env: NodeJS.ProcessEnv = { DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', JOB_SCHEMA, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  const server = await startProcess('app/main.js', env);
  const db = new Client(databaseUrl ? { connectionString: databaseUrl } : { host: dataDir, port: 5432, user: 'postgres', database: 'postgres' });
  await db.connect();
  try {
    const keys = Array.from({ length: ROUNDS + 1 }, (_, i) => {
      const t = cliJson(env, ['tenant', 'create', '--name', `bench-bulk-${i}`]) as { live_api_key: string; test_api_key: string };
      return MODE === 'test' ? t.test_api_key : t.live_api_key;
    });
    await importAndWait(server, keys[0], 'warm', 500, db); // JIT, pools, the flow read
    const rounds: Round[] = [];
    const baselines: number[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      rounds.push(await importAndWait(server, keys[i], `r${i}`, N, db));
      baselines.push(await singleCreates(server, keys[i], `single${i}`));
      const r = rounds.at(-1)!;
      console.log(`${name} round ${i}: ${N} records in ${r.seconds.toFixed(2)} s after the 202 (POST ${r.postMs.toFixed(0)} ms${r.mailSeconds === null ? '' : `, all mail in the outbox ${r.mailSeconds.toFixed(2)} s`}), RSS +${r.rssGrowthMb.toFixed(0)} MB; single creates ${baselines.at(-1)!.toFixed(1)} s per ${N}`);
    }
    const seconds = median(rounds.map((r) => r.seconds));
    const rss = Math.max(...rounds.map((r) => r.rssGrowthMb));
    const baseline = median(baselines);
    return `| ${name} | ${N} | ${seconds.toFixed(2)} s (goal <= ${goalSeconds} s: ${seconds <= goalSeconds ? 'met' : 'MISSED'}) | ${rss.toFixed(0)} MB (goal <= 150: ${rss <= 150 ? 'met' : 'MISSED'}) | ${baseline.toFixed(1)} s | ${(baseline / seconds).toFixed(1)}x |`;
  } finally {
    await db.end();
    await server.stop();
    if (databaseUrl) {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${JOB_SCHEMA} CASCADE`);
      await client.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rows = [await benchTarget('embedded (PGlite)', undefined, 15)];
  if (process.env.DATABASE_URL) rows.push(await benchTarget('PostgreSQL', process.env.DATABASE_URL, 10));
  console.log(`\nBulk import (${MODE} key${EMAIL ? ', every record with an email' : ''}), ${os.cpus().length} cores, median of ${ROUNDS} rounds; baseline: ${BASELINE_N} single creates (16 in flight) extrapolated to ${N}`);
  console.log('| database | records | 202 -> all created | server RSS growth (max) | single creates, same records | bulk speed-up |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
