import 'reflect-metadata';
import autocannon from 'autocannon';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditLogService } from '../src/audit/audit-log.service';
import { openDatabase } from '../src/db/database';
import { newId } from '../src/ids';
import { RetentionReclassifier } from '../src/retention/retention-reclassifier';
import { cliJson, startProcess } from './bench-support';

/**
 * npm run bench:retention — the nightly reclassification pass over RETENTION_BENCH_N (1,000,000)
 * artifact rows, and the API's read p99 while it runs against idle runs before and after it (the
 * goal: within 20 %); then audit append throughput, chained (one appender per log, the head row
 * lock) against a plain INSERT of the same rows into an unchained copy of the table.
 *
 * Set DATABASE_URL to a database of your own (the bench's audit entries cannot be deleted: the
 * log is append-only). Rows: 1,000 sessions of one tenant, half completed; artifacts spread over
 * the seven classes, stored over the last 20 days; the tenant's policy tightened so the pass has
 * work. Reads: GET /v1/verify/sessions/{id} with the tenant's key, 8 connections.
 */
const N = Number(process.env.RETENTION_BENCH_N ?? 1_000_000);
const AUDIT_N = Number(process.env.RETENTION_BENCH_AUDIT_N ?? 5_000);
const IDLE_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

type Load = { p50: number; p99: number; rps: number; requests: number };

function load(url: string, key: string, sessionId: string, seconds: number | null): { stop(): void; done: Promise<Load> } {
  let inst: autocannon.Instance;
  const done = new Promise<Load>((resolve, reject) => {
    inst = autocannon(
      { url: `${url}/v1/verify/sessions/${sessionId}`, headers: { authorization: `Bearer ${key}` }, connections: 8, duration: seconds ?? 3600 },
      (err, r) => (err ? reject(err) : resolve({ p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average, requests: r.requests.total })),
    );
  });
  return { stop: () => inst.stop(), done };
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('Set DATABASE_URL to a database of your own (see the header of bench/retention.bench.ts)');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-retention-'));
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', WORKER_ENABLED: 'false' };
  const tenant = cliJson(env, ['tenant', 'create', '--name', 'bench-retention']) as { tenant_id: string; live_api_key: string };
  const server = await startProcess('app/main.js', env);
  const database = await openDatabase({ databaseUrl, dataDir }, 4);
  const db = database.dataSource;
  try {
    const created = await fetch(`${server.url}/v1/verify/sessions`, { method: 'POST', headers: { authorization: `Bearer ${tenant.live_api_key}`, 'content-type': 'application/json' }, body: JSON.stringify({ flow_id: 'default', tier: 'T1' }) });
    const template = (await created.json()) as { id: string };
    const prefix = `vses_b${newId('ten').slice(4, 16)}`;
    console.log(`seeding 1,000 sessions and ${N.toLocaleString('en')} artifacts...`);
    let t = performance.now();
    // Copies of one real session, through jsonb so the column list never drifts from the table's.
    await db.query(
      `INSERT INTO sessions SELECT (jsonb_populate_record(NULL::sessions, to_jsonb(s) || jsonb_build_object('id', $1 || lpad(i::text, 6, '0'),
         'status', CASE WHEN i % 2 = 0 THEN 'success' ELSE 'processing' END, 'completed_at', CASE WHEN i % 2 = 0 THEN now() ELSE NULL END))).*
       FROM sessions s, generate_series(1, 1000) i WHERE s.id = $2`,
      [prefix, template.id],
    );
    await db.query(
      `INSERT INTO artifacts (id, session_id, tenant_id, livemode, user_id, class, content_type, size_bytes, sha256, details, iv, auth_tag, stored_at, retain_until, purged_at)
       SELECT 'art_b' || $2 || lpad(i::text, 9, '0'), $1 || lpad((1 + i % 1000)::text, 6, '0'), $3, true, NULL,
         (ARRAY['liveness_template','face_match_template','selfie_image','selfie_video','id_document_image','mrz_text','decision_signals'])[1 + i % 7],
         'image/png', 100, repeat('0', 64), '{}', '\\x00', '\\x00', now() - (i % 20) * interval '1 day', now() + interval '30 days', NULL
       FROM generate_series(1, $4::int) i`,
      [prefix, prefix.slice(6, 12), tenant.tenant_id, N],
    );
    await db.query(`ANALYZE artifacts`);
    console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    await db.query(`INSERT INTO tenant_retention VALUES ($1, true, 10, 5, 3, 7, now()) ON CONFLICT (tenant_id, livemode) DO UPDATE SET biometric_template_days = 10, selfie_image_days = 5, selfie_video_days = 3`, [tenant.tenant_id]);

    await load(server.url, tenant.live_api_key, template.id, 8).done; // warm-up (JIT, pool, caches)
    const idle1 = await load(server.url, tenant.live_api_key, template.id, IDLE_SECONDS).done;
    const during = load(server.url, tenant.live_api_key, template.id, null);
    t = performance.now();
    const changed = await new RetentionReclassifier(db).run();
    const passSeconds = (performance.now() - t) / 1000;
    during.stop();
    const busy = await during.done;
    const idle2 = await load(server.url, tenant.live_api_key, template.id, IDLE_SECONDS).done;
    const reclassified = [...changed.values()].reduce((n, c) => n + Object.values(c.counts).reduce((a, b) => a + b, 0), 0);
    const idleP99 = (idle1.p99 + idle2.p99) / 2;

    // Audit appends: chained through AuditLogService (8 concurrent writers on one log) vs a plain INSERT of the same rows.
    const audit = new AuditLogService(db);
    const benchTenant = newId('ten');
    const entry = (i: number) => ({ tenantId: benchTenant, livemode: true, action: 'evidence.opened', subjectId: `art_${i}`, detail: { session_id: 'vses_x', class: 'selfie_image', request_id: `req_${i}` } });
    const writers = 8;
    t = performance.now();
    await Promise.all(Array.from({ length: writers }, async (_, w) => { for (let i = w; i < AUDIT_N; i += writers) await audit.append(entry(i)); }));
    const chainedPerS = AUDIT_N / ((performance.now() - t) / 1000);
    await db.query(`CREATE TABLE IF NOT EXISTS bench_audit_plain (seq bigserial PRIMARY KEY, public_id text, log_id text, log_seq bigint, prev_hash text, hash text, tenant_id text, livemode boolean, action text, subject_id text, detail jsonb, created_at timestamptz)`);
    t = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = w; i < AUDIT_N; i += writers) {
          const e = entry(i);
          await db.query(`INSERT INTO bench_audit_plain (public_id, log_id, log_seq, prev_hash, hash, tenant_id, livemode, action, subject_id, detail, created_at) VALUES ($1, $2, 0, '', '', $3, $4, $5, $6, $7, now())`, [
            newId('key'),
            'plain',
            e.tenantId,
            e.livemode,
            e.action,
            e.subjectId,
            JSON.stringify(e.detail),
          ]);
        }
      }),
    );
    const plainPerS = AUDIT_N / ((performance.now() - t) / 1000);
    await db.query(`DROP TABLE bench_audit_plain`);

    console.log('\n## Nightly pass');
    console.log(`rows: ${N.toLocaleString('en')}, reclassified: ${reclassified.toLocaleString('en')}, time: ${passSeconds.toFixed(1)} s (${Math.round(N / passSeconds).toLocaleString('en')} rows/s)`);
    console.log('| reads (GET /v1/verify/sessions/{id}) | req/s | p50 ms | p99 ms |');
    console.log('|---|---|---|---|');
    for (const [name, r] of [['idle, before', idle1], ['during the pass', busy], ['idle, after', idle2]] as const) console.log(`| ${name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} |`);
    console.log(`p99 during / idle (mean of the two idle runs): ${(busy.p99 / idleP99).toFixed(2)} (goal: <= 1.20)`);
    console.log('\n## Audit appends');
    console.log(`| writer | entries/s |\n|---|---|\n| chained (AuditLogService, ${writers} writers, one log) | ${Math.round(chainedPerS)} |\n| plain INSERT (same rows, no chain) | ${Math.round(plainPerS)} |`);
    console.log(`chained / plain: ${(chainedPerS / plainPerS).toFixed(2)}`);
  } finally {
    await db.query(`DELETE FROM artifacts WHERE tenant_id = $1`, [tenant.tenant_id]).catch(() => undefined);
    await database.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
