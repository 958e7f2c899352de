import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { buildContainer, Container } from '../src/container';
import { newId } from '../src/ids';
import { createLogger } from '../src/logger';
import { testModeResult } from '../src/sessions/test-mode-outcome';
import { resolveWebhookTarget } from '../src/webhooks/ssrf.guard';
import { sendWebhook } from '../src/webhooks/webhook.sender';
import { signatureHeader } from '../src/webhooks/webhook.signer';

/**
 * npm run bench:webhooks — session completions delivered to a local receiver, through the real path:
 * SessionService.advance commits the status change, its outbox rows and the delivery jobs in one
 * transaction; pg-boss workers in this process sign and POST them. Sessions are inserted at
 * `processing` by SQL so the 10 s test-mode clock is not part of the measurement.
 *
 * Baselines from the same run: raw signed POSTs to the same receiver (the delivery ceiling), and
 * completions without any endpoint (the cost of the transition alone).
 *
 * Env: WEBHOOK_BENCH_N (10000), WEBHOOK_BENCH_RATE (completions/s offered, 500), DATABASE_URL (else embedded).
 */
const N = Number(process.env.WEBHOOK_BENCH_N ?? 10_000);
const RATE = Number(process.env.WEBHOOK_BENCH_RATE ?? 500);
const BASELINE_N = Math.min(2_000, N);

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
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', WORKER_ENABLED: 'true', PORT: '0', REDIS_URL: '' });
  const c = await buildContainer(config, createLogger('warn'));
  const receiver = await startReceiver();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  try {
    const withEndpoint = await c.tenants.create('bench-webhooks');
    const without = await c.tenants.create('bench-no-endpoint');
    const scope = { tenantId: withEndpoint.tenantId, livemode: false };
    await c.webhooks.create(scope, { url: receiver.url, events: ['verification.completed'] });

    // Baseline 1: signed POSTs straight to the receiver, same concurrency as the workers.
    const target = await resolveWebhookTarget(receiver.url, false);
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

    // The measurement: N completions offered at RATE/s, each delivered to the receiver.
    const ids = await insertProcessingSessions(c, withEndpoint.tenantId, N);
    const committedAt = new Map<string, number>();
    const start = performance.now();
    await pool(ids, 32, async (id, i) => {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await c.sessions.advance(id, 'success', () => ({ result: APPROVED }));
      committedAt.set(id, performance.now());
    });
    const producedIn = (performance.now() - start) / 1000;
    const deadline = Date.now() + 180_000;
    while (receiver.arrivals.size < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const arrivalTimes = [...receiver.arrivals.values()];
    const lastArrival = Math.max(...arrivalTimes);
    const deliveredPerSecond = receiver.arrivals.size / ((lastArrival - start) / 1000);
    const latencies = ids.filter((id) => receiver.arrivals.has(id)).map((id) => receiver.arrivals.get(id)! - committedAt.get(id)!).sort((a, b) => a - b);
    const mem = process.memoryUsage();

    console.log(`webhooks bench: ${N} completions offered at ${RATE}/s, database ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}, worker concurrency ${config.webhooks.concurrency}`);
    console.log('| measure | value |');
    console.log('|---|---|');
    console.log(`| completions produced/s (achieved) | ${(N / producedIn).toFixed(0)} |`);
    console.log(`| first deliveries received | ${receiver.arrivals.size} / ${N} |`);
    console.log(`| deliveries/s (first commit -> last delivery) | ${deliveredPerSecond.toFixed(0)} |`);
    console.log(`| commit -> first attempt p50 / p99 / max (ms) | ${percentile(latencies, 50).toFixed(0)} / ${percentile(latencies, 99).toFixed(0)} / ${latencies.at(-1)!.toFixed(0)} |`);
    console.log(`| peak RSS / heap used at end (MiB) | ${(peakRss / 2 ** 20).toFixed(0)} / ${(mem.heapUsed / 2 ** 20).toFixed(0)} |`);
    console.log(`| baseline: raw signed POSTs/s to the same receiver | ${rawPostsPerSecond.toFixed(0)} |`);
    console.log(`| baseline: completions/s with no endpoint | ${plainCompletionsPerSecond.toFixed(0)} |`);
    console.log(`| ratio deliveries/s : raw POSTs/s | ${(deliveredPerSecond / rawPostsPerSecond).toFixed(2)} |`);
    console.log(`| ratio deliveries/s : completions/s with no endpoint | ${(deliveredPerSecond / plainCompletionsPerSecond).toFixed(2)} |`);
    console.log(`| goal >= 500/s and p99 < 1000 ms | ${deliveredPerSecond >= 500 && percentile(latencies, 99) < 1000 ? 'met' : 'NOT met'} |`);
  } finally {
    clearInterval(sampler);
    await receiver.close();
    await c.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
