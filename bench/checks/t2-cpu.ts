/**
 * `node dist/bench/checks/t2-cpu.js`: where a T2 session's check CPU goes. Runs the offline engines in this
 * process (as one check worker does) on the latency bench's captures: the FRANCK_PASSPORT document photo, the
 * franck_04000 selfie and the video windows the bench answers a [look_up, smile] challenge with, in the order
 * and with the inputs src/verification/run-checks.job.ts gives them, and reports the CPU seconds of each check
 * (the OCR's own thread included) and of each face analysis by what was analysed. T2_CPU_ROUNDS (default 3)
 * sessions after one warm-up, in the ways T2_CPU_MODES names (default all three): `before` (every liveness frame
 * analysed with every model, each check analysing its images itself), `smile+8` (FRAMES_ANALYSED_PER_STEP, and
 * one analysis per image for the session's checks as a run of src/verification/run-checks.job.ts shares them
 * through the worker pool; every analysed frame embedded) and `after` (as `smile+8`, the embedding only on
 * `identityFrames`, IDENTITY_FRAMES_PER_STEP).
 */
import { FRANCK_PASSPORT } from './document-with-portrait';
import { packageImage } from './face-images';
import { FRANCK_FPS, FRANCK_WINDOWS, windowFrames } from '../../test/helpers/live-capture';
import { passportPhoto } from '../../test/helpers/live-session';
import type { ChallengeAction, ImageInput, LivenessChallenge, LivenessFrame } from '../../src/checks/check-providers';
import { offlineEngines } from '../../src/checks/engines/offline-engines';
import { EmbeddedLivenessVerifier } from '../../src/checks/engines/embedded-liveness.verifier';
import { MemoFaceAnalyzer } from '../../src/checks/engines/face-analysis-memo';
import { HUMAN_FACE_MODEL } from '../../src/checks/engines/embedded-models';
import { biometricPolicy } from '../../src/checks/policy/biometric-policy';
import { HumanFaceAnalyzer } from '../../src/checks/engines/human-face.analyzer';
import { MrzOcr } from '../../src/checks/engines/mrz-ocr';
import type { AnalysisParts, FaceAnalysis, FaceAnalyzer } from '../../src/checks/engines/face-analysis';

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Counts and times each analysis, by the kind of image `kindOf` names. */
class CountingAnalyzer implements FaceAnalyzer {
  readonly byKind: Record<string, { n: number; cpu: number }> = {};
  constructor(
    private readonly inner: FaceAnalyzer,
    private readonly kindOf: (image: ImageInput) => string,
  ) {}
  async analyze(image: ImageInput, parts?: AnalysisParts): Promise<FaceAnalysis> {
    const t = cpu();
    const a = await this.inner.analyze(image, parts);
    const k = (this.byKind[`${this.kindOf(image)}${parts?.embedding === false ? ' (no embedding)' : ''}`] ??= { n: 0, cpu: 0 });
    k.n++;
    k.cpu += cpu() - t;
    return a;
  }
}

function challengeOf(actions: ChallengeAction[], now: number): { challenge: LivenessChallenge; frames: LivenessFrame[] } {
  const challenge: LivenessChallenge = { id: 'chl_cpu', issuedAt: now, steps: actions.map((action, i) => ({ action, nonce: `n${i}`, opensAt: now + i * 4000, closesAt: now + (i + 1) * 4000 })) };
  const frames = actions.flatMap((action, i) =>
    windowFrames(FRANCK_WINDOWS[action][0], FRANCK_FPS).map((bytes, k) => ({ stepIndex: i, nonce: `n${i}`, capturedAt: now + i * 4000 + 100 + Math.round((k / FRANCK_FPS) * 1000), image: { bytes, contentType: 'image/jpeg' } })),
  );
  return { challenge, frames };
}

async function main() {
  const document = await passportPhoto(FRANCK_PASSPORT, { degradation: { jpegQuality: 85 } });
  const selfie = packageImage('franck_04000.jpg');
  const rounds = Number(process.env.T2_CPU_ROUNDS ?? 3);
  const t0 = cpu();
  const [ocr, human] = await Promise.all([MrzOcr.start(), HumanFaceAnalyzer.start()]);
  const loadCpu = cpu() - t0;
  const results = [];
  for (const mode of (process.env.T2_CPU_MODES ?? 'before,smile+8,after').split(',') as ('before' | 'smile+8' | 'after')[])
    for (let r = 0; r <= rounds; r++) {
      const { challenge, frames } = challengeOf(r % 2 ? ['smile', 'look_up'] : ['look_up', 'smile'], Date.now());
      const frameBytes = new Set(frames.map((f) => f.image.bytes));
      const analyzer = new CountingAnalyzer(human, (i) => (i.bytes === selfie.bytes ? 'selfie' : i.bytes === document.bytes ? 'document' : frameBytes.has(i.bytes) ? 'frame' : 'other'));
      const faces = mode === 'before' ? analyzer : new MemoFaceAnalyzer(analyzer);
      const engines = offlineEngines(ocr, faces);
      if (mode === 'before') engines.livenessVerifier = new EmbeddedLivenessVerifier(faces, biometricPolicy, HUMAN_FACE_MODEL, () => Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
      if (mode === 'smile+8') engines.livenessVerifier = new EmbeddedLivenessVerifier(faces, biometricPolicy, HUMAN_FACE_MODEL, undefined, Number.POSITIVE_INFINITY);
      const checks: Record<string, { cpu: number; verdict: string }> = {};
      const timed = async (name: string, call: () => Promise<{ verdict: string }>) => {
        const t = cpu();
        const v = await call();
        checks[name] = { cpu: Math.round((cpu() - t) * 100) / 100, verdict: v.verdict };
      };
      await timed('document_ocr', () => engines.documentReader.read({ images: [document], now: new Date() }));
      await timed('face_match', () => engines.faceMatcher.match({ document, selfie }));
      let liveness: Awaited<ReturnType<typeof engines.livenessVerifier.verify>> | undefined;
      await timed('liveness', async () => (liveness = await engines.livenessVerifier.verify({ challenge, frames, referenceFaces: [selfie, document] })));
      await timed('anti_spoof', () => engines.presentationAttackDetector.detect({ selfie, frames: frames.map((f) => f.image) }));
      if (r === 0) continue; // warm-up
      const analyses = Object.fromEntries(Object.entries(analyzer.byKind).map(([k, v]) => [k, { n: v.n, cpuPerAnalysis: Math.round((v.cpu / v.n) * 1000) / 1000 }]));
      const total = Math.round(Object.values(checks).reduce((s, c) => s + c.cpu, 0) * 100) / 100;
      const identity = { score: Math.round((liveness?.score ?? 0) * 1000) / 1000, frames: liveness?.details?.identityFrames };
      results.push({ mode, steps: challenge.steps.map((s) => s.action), frames: frames.length, checks, analyses, identity, total });
    }
  await ocr.close();
  console.log(JSON.stringify({ modelLoadCpu: Math.round(loadCpu * 100) / 100, sessions: results }, null, 2));
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
