import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { closeInProcess } from './bench-support';
import { loadConfig } from '../src/config';
import { buildContainer, Container } from '../app/container';
import { newId, randomBase62 } from '../src/ids';
import { createLogger } from '../src/logger';
import { testModeResult } from '../src/sessions/test-mode-outcome';

/**
 * npm run bench:dsr-purge — biometric purge latency when many users delete their accounts at once
 * (docs/data-rights.md, "Benchmark"). In one process with its workers: DSR_BENCH_USERS users (200),
 * each with DSR_BENCH_SESSIONS decided sessions (2) of one tenant, each session holding a selfie
 * image and a liveness template in the vault; the tenant has one webhook endpoint on a local
 * receiver. All users call `POST /v1/me/delete`'s service at once; a user's latency runs from their
 * request to the arrival at the receiver of the last `biometric.purged` about their sessions (the
 * spec's 60 s). Baseline from the same run: one user deleting alone.
 */
const USERS = Number(process.env.DSR_BENCH_USERS ?? 200);
const SESSIONS = Number(process.env.DSR_BENCH_SESSIONS ?? 2);
const { result: APPROVED } = testModeResult('T2', 'approved');

type Arrivals = Map<string, number>; // `<verification_id>:<artifact>` -> arrival of its biometric.purged (ms, performance.now())

async function startReceiver(): Promise<{ url: string; arrivals: Arrivals; close(): Promise<void> }> {
  const arrivals: Arrivals = new Map();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const e = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { verification_id?: string; artifact?: string } };
      const key = `${e.data.verification_id}:${e.data.artifact}`;
      if (e.type === 'biometric.purged' && !arrivals.has(key)) arrivals.set(key, at);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, arrivals, close: () => new Promise((r) => server.close(() => r())) };
}

/** A user with `SESSIONS` decided sessions bound to them, each with a selfie and a liveness template in the vault. */
async function seedUser(c: Container, tenantId: string): Promise<{ userId: string; sessionIds: string[] }> {
  const userId = newId('usr');
  await c.db.query(`INSERT INTO users (id, email_sealed, email_hash, password_hash, state) VALUES ($1, 'v1:bench', $2, 'bench', 'active')`, [userId, randomBase62(32)]);
  const sessionIds: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const id = newId('vses');
    await c.db.query(
      `INSERT INTO sessions (id, tenant_id, livemode, flow_id, tier, status, locale, metadata, client_secret_hash, created_at, updated_at, expires_at, user_id)
       SELECT $1, $2, false, f.id, 'T2', 'processing', 'en', '{}'::jsonb, 'x', now(), now(), now() + interval '1 day', $3 FROM flows f WHERE f.tenant_id = $2 AND f.is_default`,
      [id, tenantId, userId],
    );
    const session = { id, tenantId, livemode: false };
    await c.vault.putDerived({ session, class: 'selfie_image', bytes: Buffer.alloc(4096, 7), contentType: 'image/jpeg' });
    await c.vault.putDerived({ session, class: 'liveness_template', bytes: Buffer.alloc(512, 3), contentType: 'application/json' });
    await c.db.query(`UPDATE sessions SET status = 'success', result = $2::jsonb, completed_at = now() WHERE id = $1`, [id, JSON.stringify(APPROVED)]);
    sessionIds.push(id);
  }
  return { userId, sessionIds };
}

const CLASSES = ['selfie_image', 'liveness_template'];

type Timings = { answered: number; purged: number; delivered: number };

/**
 * Per user, milliseconds from the request to: its answer (the soft delete), the purge's commit
 * (`artifacts.purged_at`), and the arrival of the last of its `biometric.purged` events (one per
 * session and class), which is the latency the goal is about.
 */
async function deleteAtOnce(c: Container, arrivals: Arrivals, users: { userId: string; sessionIds: string[] }[]): Promise<Timings[]> {
  const started = new Map<string, { perf: number; wall: number }>();
  const answered = new Map<string, number>();
  await Promise.all(
    users.map(async (u) => {
      started.set(u.userId, { perf: performance.now(), wall: Date.now() });
      await c.userRights.erasure.requestDeletion(u.userId);
      answered.set(u.userId, performance.now() - started.get(u.userId)!.perf);
    }),
  );
  const deadline = performance.now() + 180_000;
  const keys = users.flatMap((u) => u.sessionIds.flatMap((id) => CLASSES.map((cls) => `${id}:${cls}`)));
  while (performance.now() < deadline && keys.some((k) => !arrivals.has(k))) await new Promise((r) => setTimeout(r, 50));
  const purgedAt = new Map<string, number>(
    ((await c.db.query(`SELECT s.user_id, MAX(a.purged_at) AS at FROM artifacts a JOIN sessions s ON s.id = a.session_id WHERE s.user_id = ANY($1::text[]) GROUP BY s.user_id`, [users.map((u) => u.userId)])) as { user_id: string; at: Date | null }[]).map((r) => [
      r.user_id,
      r.at ? new Date(r.at).getTime() : Infinity,
    ]),
  );
  return users.map((u) => ({
    answered: answered.get(u.userId)!,
    purged: (purgedAt.get(u.userId) ?? Infinity) - started.get(u.userId)!.wall,
    delivered: Math.max(...u.sessionIds.flatMap((id) => CLASSES.map((cls) => (arrivals.get(`${id}:${cls}`) ?? Infinity) - started.get(u.userId)!.perf))),
  }));
}

/**
 * DSR_BENCH_PROFILE=1: the statements the application's DataSource ran during the crowd (by their
 * first words, with count and summed time), and on a PostgreSQL server how many connections were
 * seen waiting on a lock, sampled every 100 ms. pg-boss's own statements go through its own pool and
 * are not counted.
 */
function startProfile(c: Container, databaseUrl: string | undefined): { stop(): Promise<string> } {
  const stats = new Map<string, { n: number; ms: number }>();
  const keyOf = (q: string) => q.replace(/\s+/g, ' ').trim().slice(0, 70);
  const logger = c.db.logger;
  const original = { logQuery: logger.logQuery.bind(logger), logQuerySlow: logger.logQuerySlow.bind(logger) };
  const options = c.db.driver.options as { maxQueryExecutionTime?: number };
  const maxBefore = options.maxQueryExecutionTime;
  options.maxQueryExecutionTime = 1e-9; // every query's time reaches logQuerySlow
  logger.logQuery = (q) => {
    const st = stats.get(keyOf(q)) ?? { n: 0, ms: 0 };
    st.n++;
    stats.set(keyOf(q), st);
  };
  logger.logQuerySlow = (time, q) => {
    const st = stats.get(keyOf(q));
    if (st) st.ms += time;
  };
  const waits = new Map<string, number>();
  let sampling = Boolean(databaseUrl);
  const sampler = (async () => {
    if (!databaseUrl) return;
    const { Client } = await import('pg');
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    while (sampling) {
      const rows: { q: string; n: string }[] = (await client.query(`SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS q, count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() GROUP BY 1`)).rows;
      for (const r of rows) waits.set(r.q, (waits.get(r.q) ?? 0) + Number(r.n));
      await new Promise((r) => setTimeout(r, 100));
    }
    await client.end();
  })();
  return {
    async stop() {
      sampling = false;
      await sampler;
      Object.assign(logger, original);
      options.maxQueryExecutionTime = maxBefore;
      const top = [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 20);
      const lines = ['', '| statement (application pool) | count | per user | total ms |', '|---|---|---|---|'];
      for (const [q, st] of top) lines.push(`| \`${q.replace(/\|/g, '\\|')}\` | ${st.n} | ${(st.n / USERS).toFixed(1)} | ${st.ms.toFixed(0)} |`);
      const total = [...stats.values()].reduce((t, st) => ({ n: t.n + st.n, ms: t.ms + st.ms }), { n: 0, ms: 0 });
      lines.push(`| all | ${total.n} | ${(total.n / USERS).toFixed(1)} | ${total.ms.toFixed(0)} |`);
      if (databaseUrl) {
        lines.push('', '| waiting on a lock (samples every 100 ms) | connections seen |', '|---|---|');
        for (const [q, n] of [...waits].sort((a, b) => b[1] - a[1]).slice(0, 10)) lines.push(`| \`${q.replace(/\|/g, '\\|')}\` | ${n} |`);
      }
      return lines.join('\n');
    },
  };
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsr-bench-'));
  const jobSchema = `pgboss_dsrbench_${process.pid}`;
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', REDIS_URL: '', JOB_SCHEMA: jobSchema, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  const c = await buildContainer(config, createLogger('warn'));
  const receiver = await startReceiver();
  try {
    const tenant = await c.tenants.create('bench-dsr');
    await c.webhooks.create({ tenantId: tenant.tenantId, livemode: false }, { url: receiver.url, events: ['verification.completed'] });
    const alone = await seedUser(c, tenant.tenantId);
    const crowd: { userId: string; sessionIds: string[] }[] = [];
    for (let i = 0; i < USERS; i++) crowd.push(await seedUser(c, tenant.tenantId));

    const [baseline] = await deleteAtOnce(c, receiver.arrivals, [alone]);
    const profile = process.env.DSR_BENCH_PROFILE === '1' ? startProfile(c, process.env.DATABASE_URL) : null;
    const t0 = performance.now();
    const timings = await deleteAtOnce(c, receiver.arrivals, crowd);
    const wallMs = performance.now() - t0;
    const report = await profile?.stop();
    const sorted = (k: keyof Timings) => timings.map((t) => t[k]).sort((a, b) => a - b);
    const latencies = sorted('delivered');
    const missing = latencies.filter((l) => !Number.isFinite(l)).length;
    const p99 = pct(latencies, 99);
    const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)} ms` : 'never');
    console.log(`\n## Biometric purge: ${USERS} users deleting at once (${SESSIONS} sessions each, selfie + liveness template per session)\n`);
    console.log(`database: ${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded'}; load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
    console.log('| from the request to | p50 | p99 | max |');
    console.log('|---|---|---|---|');
    for (const [label, k] of [['the answer (soft delete committed)', 'answered'], ['the purge committed', 'purged'], ['the last biometric.purged delivered', 'delivered']] as const) {
      const v = sorted(k);
      console.log(`| ${label} | ${ms(pct(v, 50))} | ${ms(pct(v, 99))} | ${ms(v[v.length - 1])} |`);
    }
    console.log(`\n| measure | value |`);
    console.log('|---|---|');
    console.log(`| baseline: one user alone, request -> last biometric.purged | ${ms(baseline.delivered)} (answer ${ms(baseline.answered)}, purge ${ms(baseline.purged)}) |`);
    console.log(`| all ${USERS} users, first request -> last event | ${wallMs.toFixed(0)} ms |`);
    console.log(`| users whose events did not all arrive within 180 s | ${missing} |`);
    console.log(`| ratio p99 : baseline | ${(p99 / baseline.delivered).toFixed(1)} |`);
    console.log(`| goal: p99 <= 60 s | ${p99 <= 60_000 && missing === 0 ? 'met' : 'NOT met'} |`);
    if (report) console.log(report);
  } finally {
    await receiver.close();
    await closeInProcess(c, config.databaseUrl, jobSchema, dataDir);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
