import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { closeInProcess } from './bench-support';
import { loadConfig } from '../src/config';
import { buildContainer, Container } from '../app/container';
import { newId } from '../src/ids';
import { createLogger } from '../src/logger';
import { testModeResult } from '../src/sessions/test-mode-outcome';
import { startJobs } from '../app/job-registry';
import { webhookJobs } from '../src/webhooks/webhook.jobs';
import { DeliverWebhookJob } from '../src/webhooks/deliver-webhook.job';
import { resolveWebhookTarget } from '../src/webhooks/ssrf.guard';
import { WebhookDispatcher } from '../src/webhooks/webhook.dispatcher';
import { WebhookSecretBox } from '../src/webhooks/webhook-secret.box';
import { sendWebhook } from '../src/webhooks/webhook.sender';
import { signatureHeader } from '../src/webhooks/webhook.signer';

/**
 * npm run bench:webhooks — session completions delivered to a local receiver, through the real path:
 * SessionService commits each status change with its outbox rows, delivery rows and pg-boss jobs in
 * one transaction (the dispatcher's outbox handler); pg-boss workers in this process sign and POST
 * them. Sessions are inserted at `processing` by SQL so the 10 s test-mode clock is not part of the
 * measurement.
 *
 * How completions are produced: with `SessionService.advanceMany`, the bulk form of `advance` (the
 * one the expiry sweep uses): every session is locked, checked against the state machine and gets
 * its own outbox rows, delivery and job, exactly as one `advance` writes them, but the sessions due
 * in one tick (20 ms: 10 at 500/s) commit in one transaction. One transaction per completion (also measured, as a
 * baseline) cannot offer 500/s on this 2-core machine while PostgreSQL and the worker share it; the
 * goal is about the deliveries of one instance, not about how fast one process can complete sessions.
 *
 * Two measurements: (1) drain: N completions committed while no delivery worker runs, then one
 * instance's worker delivers the backlog (the ceiling of one instance); (2) live: N more completions
 * offered at WEBHOOK_BENCH_RATE/s while that worker runs: deliveries/s from the first commit to the
 * last first attempt, and commit -> first attempt at the receiver (commit time = when the
 * transaction's COMMIT returned; arrival = when the receiver read the whole request). Baselines
 * from the same run: raw signed POSTs to the same receiver (the delivery ceiling), and completions
 * without any endpoint, one transaction each.
 *
 * Env: WEBHOOK_BENCH_N (10000), WEBHOOK_BENCH_RATE (completions/s offered; 525, above the goal's
 * 500, so a run that keeps up shows >= 500 deliveries/s), DATABASE_URL (else embedded). The job
 * queue lives in its own schema, dropped at the end, so nothing else takes its jobs.
 */
const N = Number(process.env.WEBHOOK_BENCH_N ?? 10_000);
const RATE = Number(process.env.WEBHOOK_BENCH_RATE ?? 525);
const BASELINE_N = Math.min(2_000, N);
const TICK_MS = 20;

type Receiver = { url: string; arrivals: Map<string, number>; count: number; close(): Promise<void> };

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const r = { arrivals, count: 0 } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      r.count++;
      try {
        const sessionId = (JSON.parse(Buffer.concat(chunks).toString()) as { data?: { session_id?: string } }).data?.session_id;
        if (sessionId && !arrivals.has(sessionId)) arrivals.set(sessionId, at);
      } catch {
        /* baseline bodies are not events */
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  r.close = () => new Promise((resolve) => server.close(() => resolve()));
  return r;
}

async function pool<T>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function insertProcessingSessions(c: Container, tenantId: string, count: number): Promise<string[]> {
  const [{ id: flowId }] = await c.db.query(`SELECT id FROM flows WHERE tenant_id = $1 AND is_default`, [tenantId]);
  const ids = Array.from({ length: count }, () => newId('vses'));
  for (let i = 0; i < ids.length; i += 1_000) {
    const chunk = ids.slice(i, i + 1_000);
    await c.db.query(
      `INSERT INTO sessions (id, tenant_id, livemode, flow_id, tier, status, reference_id, redirect_url, locale, metadata, result, client_secret_hash, created_at, updated_at, completed_at, expires_at)
       SELECT id, $2, false, $3, 'T1', 'processing', id, NULL, 'en-US', '{}'::jsonb, NULL, 'bench', now(), now(), NULL, now() + interval '1 day' FROM unnest($1::text[]) AS id`,
      [chunk, tenantId, flowId],
    );
  }
  return ids;
}

const { result: APPROVED } = testModeResult('T1', 'approved');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'whk-bench-'));
  const jobSchema = `pgboss_bench_${process.pid}`;
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', WORKER_ENABLED: 'false', PORT: '0', REDIS_URL: '', JOB_SCHEMA: jobSchema });
  const logger = createLogger('warn');
  const c = await buildContainer(config, logger);
  const receiver = await startReceiver();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  try {
    const withEndpoint = await c.tenants.create('bench-webhooks');
    const without = await c.tenants.create('bench-no-endpoint');
    const scope = { tenantId: withEndpoint.tenantId, livemode: false };
    await c.webhooks.create(scope, { url: receiver.url, events: ['verification.completed'] });

    // Baseline 1: signed POSTs straight to the receiver, same concurrency as the workers.
    const target = await resolveWebhookTarget(receiver.url, false, undefined, { allowPrivate: true });
    const body = JSON.stringify({ id: 'evt_baseline', type: 'verification.completed', data: {} });
    let t = performance.now();
    await pool(Array.from({ length: BASELINE_N }), config.webhooks.concurrency, async () => {
      const ts = Math.floor(Date.now() / 1000);
      await sendWebhook({ target, body, headers: { 'content-type': 'application/json', 'Service-Signature': signatureHeader(['whsec_x'], ts, body) }, timeoutMs: 10_000, maxBodyBytes: 1024 });
    });
    const rawPostsPerSecond = BASELINE_N / ((performance.now() - t) / 1000);

    // Baseline 2: completions of a tenant with no endpoint (transition + outbox only).
    const plain = await insertProcessingSessions(c, without.tenantId, BASELINE_N);
    t = performance.now();
    await pool(plain, 16, async (id) => {
      await c.sessions.advance(id, 'success', () => ({ result: APPROVED }));
    });
    const plainCompletionsPerSecond = BASELINE_N / ((performance.now() - t) / 1000);

    // (1) Drain: N completions committed while no delivery worker runs, then one instance's worker delivers them.
    const backlog = await insertProcessingSessions(c, withEndpoint.tenantId, N);
    for (let i = 0; i < backlog.length; i += 100) await c.sessions.advanceMany(backlog.slice(i, i + 100), 'success', () => ({ result: APPROVED }));
    const box = await WebhookSecretBox.load(c.db, config.webhooks.secretKey);
    const dispatcher = new WebhookDispatcher(c.jobs, { expireInSeconds: Math.ceil(config.webhooks.timeoutMs / 1000) + 5 });
    const job = new DeliverWebhookJob(c.db, box, dispatcher, logger, { timeoutMs: config.webhooks.timeoutMs, retryScale: 1, allowPrivateTargets: true }, c.audit);
    const drainStart = performance.now();
    await startJobs(c.jobs, webhookJobs, { webhookDelivery: { job, concurrency: config.webhooks.concurrency } });
    const drainDeadline = Date.now() + 300_000;
    while (receiver.arrivals.size < N && Date.now() < drainDeadline) await new Promise((r) => setTimeout(r, 20));
    const drained = receiver.arrivals.size;
    const drainPerSecond = drained / ((Math.max(...receiver.arrivals.values()) - drainStart) / 1000);
    const drainRss = peakRss;

    // (2) Live: N completions offered at RATE/s while that worker runs.
    const ids = await insertProcessingSessions(c, withEndpoint.tenantId, N);
    const committedAt = new Map<string, number>();
    const start = performance.now();
    let transactions = 0;
    for (let done = 0; done < N; ) {
      // Every session due by now (the i-th at start + i / RATE) commits in this tick's transaction.
      const due = Math.min(N, Math.floor(((performance.now() - start) * RATE) / 1000) + 1);
      if (due - done < Math.min(N - done, (RATE * TICK_MS) / 1000)) {
        await new Promise((r) => setTimeout(r, TICK_MS / 4));
        continue;
      }
      const batch = ids.slice(done, due);
      const moved = await c.sessions.advanceMany(batch, 'success', () => ({ result: APPROVED }));
      if (moved.length !== batch.length) throw new Error(`only ${moved.length} of ${batch.length} sessions completed`);
      const at = performance.now();
      for (const id of batch) committedAt.set(id, at);
      transactions++;
      done = due;
    }
    const producedIn = (performance.now() - start) / 1000;
    const deadline = Date.now() + 180_000;
    while (ids.some((id) => !receiver.arrivals.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const liveArrivals = ids.filter((id) => receiver.arrivals.has(id));
    const arrivalTimes = liveArrivals.map((id) => receiver.arrivals.get(id)!);
    const lastArrival = Math.max(...arrivalTimes);
    // Sustained rate: first attempts between the first and the last one to arrive. (From the first
    // commit it cannot reach the offered rate: the last completion's own latency is added to it.)
    const deliveredPerSecond = (liveArrivals.length - 1) / ((lastArrival - Math.min(...arrivalTimes)) / 1000);
    const deliveredFromStart = liveArrivals.length / ((lastArrival - start) / 1000);
    const latencies = liveArrivals.map((id) => receiver.arrivals.get(id)! - committedAt.get(id)!).sort((a, b) => a - b);
    const mem = process.memoryUsage();

    console.log(`webhooks bench: database ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}, worker concurrency ${config.webhooks.concurrency}, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}`);
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| live: completions offered / achieved per s | ${RATE} / ${(N / producedIn).toFixed(0)} (${N} in ${transactions} transactions) |`);
    console.log(`| live: first deliveries received | ${liveArrivals.length} / ${N} |`);
    console.log(`| live: deliveries/s, first to last first attempt (first commit -> last) | ${deliveredPerSecond.toFixed(0)} (${deliveredFromStart.toFixed(0)}) |`);
    console.log(`| live: commit -> first attempt p50 / p99 / max (ms) | ${percentile(latencies, 50).toFixed(0)} / ${percentile(latencies, 99).toFixed(0)} / ${latencies.at(-1)!.toFixed(0)} |`);
    console.log(`| drain: ${N} committed completions delivered by one instance | ${drained} / ${N} |`);
    console.log(`| drain: deliveries/s (one instance) | ${drainPerSecond.toFixed(0)} |`);
    console.log(`| peak RSS after drain / after live, heap used at end (MiB) | ${(drainRss / 2 ** 20).toFixed(0)} / ${(peakRss / 2 ** 20).toFixed(0)}, ${(mem.heapUsed / 2 ** 20).toFixed(0)} |`);
    console.log(`| baseline: raw signed POSTs/s to the same receiver | ${rawPostsPerSecond.toFixed(0)} |`);
    console.log(`| baseline: completions/s with no endpoint, one transaction each | ${plainCompletionsPerSecond.toFixed(0)} |`);
    console.log(`| ratio drain deliveries/s : raw POSTs/s | ${(drainPerSecond / rawPostsPerSecond).toFixed(2)} |`);
    console.log(`| goal: >= 500 deliveries/s per instance (drain; live) | ${drainPerSecond >= 500 ? 'met' : 'NOT met'}; ${deliveredPerSecond >= 500 ? 'met' : 'NOT met'} |`);
    console.log(`| goal: live p99 < 1000 ms | ${percentile(latencies, 99) < 1000 ? 'met' : 'NOT met'} (at ${deliveredPerSecond.toFixed(0)} deliveries/s) |`);
  } finally {
    clearInterval(sampler);
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
