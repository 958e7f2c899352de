import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { closeInProcess } from './bench-support';
import { loadConfig } from '../src/config';
import { buildContainer, Container } from '../src/container';
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

type Arrivals = Map<string, number>; // verification_id -> last biometric.purged arrival (ms, performance.now())

async function startReceiver(): Promise<{ url: string; arrivals: Arrivals; close(): Promise<void> }> {
  const arrivals: Arrivals = new Map();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const e = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { verification_id?: string } };
      if (e.type === 'biometric.purged' && e.data.verification_id) arrivals.set(e.data.verification_id, Math.max(at, arrivals.get(e.data.verification_id) ?? 0));
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

/** Milliseconds from each user's request to the last biometric.purged about their sessions. */
async function deleteAtOnce(c: Container, arrivals: Arrivals, users: { userId: string; sessionIds: string[] }[]): Promise<number[]> {
  const started = new Map<string, number>();
  await Promise.all(
    users.map(async (u) => {
      started.set(u.userId, performance.now());
      await c.userRights.erasure.requestDeletion(u.userId);
    }),
  );
  const deadline = performance.now() + 180_000;
  const expected = users.length * SESSIONS * 2; // two biometric classes per session
  const ids = new Set(users.flatMap((u) => u.sessionIds));
  while (performance.now() < deadline && [...ids].filter((id) => arrivals.has(id)).length < ids.size) await new Promise((r) => setTimeout(r, 50));
  // Let the second class of each session arrive too (events are per verification and class).
  await new Promise((r) => setTimeout(r, 500));
  void expected;
  return users.map((u) => Math.max(...u.sessionIds.map((id) => (arrivals.get(id) ?? Infinity) - started.get(u.userId)!)));
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
    const latencies = (await deleteAtOnce(c, receiver.arrivals, crowd)).sort((a, b) => a - b);
    const missing = latencies.filter((l) => !Number.isFinite(l)).length;
    const p99 = pct(latencies, 99);
    console.log(`\n## Biometric purge: ${USERS} users deleting at once (${SESSIONS} sessions each, selfie + liveness template per session)\n`);
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| baseline: one user alone, request -> last biometric.purged | ${baseline.toFixed(0)} ms |`);
    console.log(`| p50 | ${pct(latencies, 50).toFixed(0)} ms |`);
    console.log(`| p99 | ${p99.toFixed(0)} ms |`);
    console.log(`| max | ${latencies[latencies.length - 1].toFixed(0)} ms |`);
    console.log(`| users whose events did not all arrive | ${missing} |`);
    console.log(`| ratio p99 : baseline | ${(p99 / baseline).toFixed(1)} |`);
    console.log(`| goal: p99 < 60 s | ${p99 < 60_000 && missing === 0 ? 'met' : 'NOT met'} |`);
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
