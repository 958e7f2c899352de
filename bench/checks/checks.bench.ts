/**
 * `npm run bench:checks`: live verification through the running server, as a tenant and the hosted
 * page drive it. The built server is started as `npm start` starts it (a child process configured by
 * its environment), live sessions are created with a live key and captured through the hosted API,
 * and the time from submit to decision is read from the API (docs/checks.md "Benchmark").
 *
 * Sections (BENCH_SECTIONS, default all):
 * - `documents`: T1 sessions with rendered passports: clean, degraded, a wrong check digit, expired.
 *   Face match is switched off (CHECK_FACE_MATCH_ENGINE=off) so the section measures the document reader.
 *   BENCH_DOCUMENTS per set (default 20).
 * - `latency`: T1 and T2 sessions, 4 submitted at once, submit to decision p50/p99, and the server's peak
 *   RSS; T2 answers its liveness challenge with real video frames (test/helpers/live-capture.ts), on the default pool (one worker per core) and, as the baseline of the same run, on one worker.
 *   BENCH_SESSIONS per tier (default 12); BENCH_TIERS (default `T1,T2`; `T1` alone skips the liveness
 *   sessions, which take most of the run); BENCH_ONE_WORKER=false skips the one-worker baseline. Each tier
 *   also reports the server's CPU seconds per session (engine threads included), which the machine's load moves little.
 *   BENCH_CPU_PROFILE=<dir> has the server write V8 CPU profiles there (`node dist/bench/cpu-profile-summary.js <dir>`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FRANCK_PASSPORT } from './document-with-portrait';
import { packageImage } from './face-images';
import { randomDegradation } from './synthetic-document';
import { buildMrz, randomFields, seededRandom } from './mrz-lines';
import { captureAndSubmit, checkOf, decided, passportPhoto } from '../../test/helpers/live-session';
import { createTenant, startServer, testEnv, type TestServer } from '../../test/helpers/test-server';
import { cpuSeconds } from '../process-cpu';

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]);
};

/** Peak resident set of the server process (its check worker threads included), from the kernel. */
function peakRssMb(server: TestServer): number {
  const status = fs.readFileSync(`/proc/${server.proc.pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Submits `sessions` sessions, `atOnce` in flight, and returns each one's submit-to-decision time (ms). */
async function submitToDecision(server: TestServer, key: string, tier: 'T1' | 'T2', sessions: number, atOnce: number, document: { bytes: Buffer; contentType: string }): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (next < sessions) {
        next++;
        const { id } = await captureAndSubmit(server, key, tier, { document, liveness: 'video' });
        const submitted = performance.now();
        await decided(server, key, id, 600_000);
        times.push(performance.now() - submitted);
      }
    }),
  );
  return times;
}

async function latency(workers: number | undefined, sessions: number, tiers: ('T1' | 'T2')[]) {
  // Rate limits off: the bench creates more sessions a minute than the verify_create bucket's 60.
  // BENCH_CPU_PROFILE=<dir>: the server writes a V8 CPU profile per thread there when it stops (bench/cpu-profile-summary.ts reads them).
  const profile = process.env.BENCH_CPU_PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROFILE, String(workers ?? 'pool'))}` } : {};
  const server = await startServer(testEnv({ RATE_LIMIT_ENABLED: 'false', ...(workers ? { CHECK_WORKERS: String(workers) } : {}), ...profile }));
  try {
    const tenant = await createTenant(server);
    // The holder of the liveness video on a passport photo every check can read, so each session runs them all.
    const document = await passportPhoto(FRANCK_PASSPORT, { degradation: { jpegQuality: 85 } });
    // Warm-up: the models load on the first live check.
    await submitToDecision(server, tenant.live_api_key, 'T1', 1, 1, document);
    const out: Record<string, unknown> = { workers: workers ?? os.availableParallelism() };
    for (const tier of tiers) {
      const started = performance.now();
      const cpuBefore = cpuSeconds(server.proc.pid!);
      const times = await submitToDecision(server, tenant.live_api_key, tier, sessions, 4, document);
      // The server's CPU (its engine threads included; the embedded database's process not) per session: what the load moves little.
      const cpuPerSession = Math.round(((cpuSeconds(server.proc.pid!) - cpuBefore) / sessions) * 100) / 100;
      out[tier] = { sessions, fourAtOnce: true, p50Ms: quantile(times, 0.5), p99Ms: quantile(times, 0.99), sessionsPerMinute: Math.round((sessions / (performance.now() - started)) * 60_000 * 10) / 10, serverCpuSecondsPerSession: cpuPerSession };
    }
    out.peakServerRssMb = peakRssMb(server);
    return out;
  } finally {
    await server.stop();
  }
}

async function documents(perSet: number) {
  const server = await startServer(testEnv({ CHECK_FACE_MATCH_ENGINE: 'off', RATE_LIMIT_ENABLED: 'false' }));
  try {
    const tenant = await createTenant(server);
    const now = new Date();
    const rand = seededRandom(2026);
    const sets: Record<string, { passed: number; total: number; wrongPass: number }> = {};
    const run = async (set: string, make: () => Promise<{ bytes: Buffer; contentType: string }>, shouldPass: boolean) => {
      const inputs = await Promise.all(Array.from({ length: perSet }, make));
      const r = { passed: 0, total: perSet, wrongPass: 0 };
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < inputs.length) {
            const document = inputs[next++];
            const { id } = await captureAndSubmit(server, tenant.live_api_key, 'T1', { document });
            const s = await decided(server, tenant.live_api_key, id, 600_000);
            const pass = checkOf(s, 'document_ocr')?.status === 'pass';
            if (pass) r.passed++;
            if (pass && !shouldPass) r.wrongPass++;
          }
        }),
      );
      sets[set] = r;
    };
    await run('clean', () => passportPhoto(randomFields(rand, 'TD3', now)), true);
    await run('degraded', () => passportPhoto(randomFields(rand, 'TD3', now), { degradation: randomDegradation(rand) }), true);
    await run('bad check digit', async () => {
      const f = randomFields(rand, 'TD3', now);
      const mrz = buildMrz(f);
      mrz[1] = `${mrz[1].slice(0, 9)}${(Number(mrz[1][9]) + 1 + Math.floor(rand() * 8)) % 10}${mrz[1].slice(10)}`;
      return passportPhoto(f, { mrz });
    }, false);
    await run('expired', () => passportPhoto(randomFields(rand, 'TD3', now, true)), false);
    return Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, { ...v, passRate: Math.round((v.passed / v.total) * 1000) / 10 }]));
  } finally {
    await server.stop();
  }
}

async function main() {
  const sections = (process.env.BENCH_SECTIONS ?? 'documents,latency').split(',');
  packageImage('franck_04000.jpg'); // fails early if the face images' package is missing
  const report: Record<string, unknown> = { machine: { cores: os.availableParallelism(), loadAverage1m: Math.round(os.loadavg()[0] * 10) / 10 } };
  if (sections.includes('documents')) report.documentsThroughHostedApi = await documents(Number(process.env.BENCH_DOCUMENTS ?? 20));
  if (sections.includes('latency')) {
    const sessions = Number(process.env.BENCH_SESSIONS ?? 12);
    const tiers = (process.env.BENCH_TIERS ?? 'T1,T2').split(',').filter((t): t is 'T1' | 'T2' => t === 'T1' || t === 'T2');
    // BENCH_ONE_WORKER=false skips the one-worker baseline (the goal is the default pool's p99).
    const baseline = process.env.BENCH_ONE_WORKER === 'false' ? null : await latency(1, sessions, tiers);
    const measured = await latency(undefined, sessions, tiers);
    report.submitToDecision = { baselineOneWorker: baseline, defaultPool: measured };
  }
  console.log(JSON.stringify(report, null, 2));
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
