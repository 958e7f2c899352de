/**
 * `npm run eval:checks`: accuracy of the offline check engines on sets the project builds at run time
 * (docs/checks.md "Evaluation"). Env: EVAL_MRZ_PER_CELL (documents per format and condition, default 50:
 * 300 in all, plus perCell/5 invalid per format), EVAL_LIVENESS_FPS (default 4), EVAL_LIVENESS_SECONDS (default 200, the whole video),
 * EVAL_MRZ_SETS (default `tuning,heldout`: the set the reader was tuned on and the held-out set of
 * bench/checks/heldout/, which nothing was tuned on; or kinds such as `heldout.degraded`),
 * EVAL_HELDOUT_PER_FORMAT (clean,degraded,invalid documents per format of the held-out set, default `12,30,6`),
 * HELDOUT_SEED (the held-out generator's seed, default 93032026; another seed draws documents nobody has looked at),
 * CHECK_WORKERS (pool size for the MRZ set), EVAL_SECTIONS (default `mrz,liveness,face`; e.g. `mrz` for the
 * document set alone), EVAL_NOW (ISO time the documents' dates are drawn around and expiry is judged at;
 * default now: the dates, hence the documents, shift with the time of day, so a before/after comparison
 * passes the first run's `now`, printed in the output). Prints one JSON document.
 */
import pino from 'pino';
import type { ChallengeAction } from '../../src/checks/check-providers';
import { verifyChallenge } from '../../src/checks/engines/challenge-verifier';
import { HumanFaceAnalyzer } from '../../src/checks/engines/human-face.analyzer';
import { createLiveCheckProviders } from '../../src/checks/live-providers';
import { biometricPolicy } from '../../src/checks/policy/biometric-policy';
import { loadConfig } from '../../src/config';
import { evaluateMrz, heldoutJobs, HELDOUT_SEED, tuningJobs, TUNING_SEED, type MrzEvalJob } from './eval-mrz';
import { summariseMrz } from './eval-mrz-summary';
import { facePairs, roc } from './eval-face';
import { challengeFromWindows, franckTimeline, jitteredStill, sampledChallenge, turnedPhoto, windowPasses, windowsOf, type FrameRule, type TimedFrame } from './eval-liveness';
import { documentStyle, packageImage } from './face-images';
import { seededRandom } from './mrz-lines';

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)} %`);
const r3 = (x: number) => Math.round(x * 1000) / 1000;

const evalNow = process.env.EVAL_NOW ? new Date(process.env.EVAL_NOW) : new Date();
/** HELDOUT_SEED draws another held-out set from the same generator (a fresh seed: documents no one has looked at). */
const heldoutSeed = process.env.HELDOUT_SEED ? Number(process.env.HELDOUT_SEED) : HELDOUT_SEED;

async function mrzSection() {
  const perCell = Number(process.env.EVAL_MRZ_PER_CELL ?? 50);
  const config = loadConfig(process.env).checks;
  const providers = createLiveCheckProviders({ ...config, engines: { document: 'embedded', faceMatch: 'embedded', liveness: 'embedded', antiSpoof: 'embedded' } }, pino({ level: 'warn' }));
  try {
    // `tuning.clean`, `tuning.degraded`, `tuning.invalid` (the set the reader was tuned on) and `heldout.*`
    // (bench/checks/heldout/, never tuned on); `tuning` or `heldout` alone means all three of its kinds.
    const sets = (process.env.EVAL_MRZ_SETS ?? 'tuning,heldout').split(',');
    const wanted = (j: MrzEvalJob) => sets.includes(j.set) || sets.includes(`${j.set}.${j.kind}`);
    const [c, d, i] = (process.env.EVAL_HELDOUT_PER_FORMAT ?? '12,30,6').split(',').map(Number);
    const jobs = [...tuningJobs(perCell, evalNow), ...heldoutJobs(evalNow, { clean: c, degraded: d, invalid: i }, heldoutSeed)].filter(wanted);
    const rows = await evaluateMrz(providers.documentReader, jobs, evalNow, Math.max(2, (config.workers ?? 2) * 2), (n) => {
      if (n % 25 === 0) process.stderr.write(`mrz ${n}/${jobs.length}\n`);
    });
    return { seeds: { tuning: TUNING_SEED, heldout: heldoutSeed }, documents: rows.length, summary: summariseMrz(rows) };
  } finally {
    await providers.close();
  }
}

async function faceSection(analyzer: HumanFaceAnalyzer, extraFranck: TimedFrame[]) {
  const { pairs, photos, people, noFace } = await facePairs(analyzer, extraFranck.map((f) => f.image));
  const result: Record<string, unknown> = { photos, people, photosWithoutExactlyOneFace: noFace };
  for (const kind of ['photo-photo', 'document-selfie', 'all']) {
    const sel = kind === 'all' ? pairs : pairs.filter((p) => p.kind === kind);
    const c = roc(sel);
    const at1 = c.tarAt(0.01);
    const pass = c.at(biometricPolicy.faceMatch.passAtOrAbove);
    result[kind] = {
      genuinePairs: c.genuine,
      impostorPairs: c.impostor,
      tarAtFar1pct: { threshold: at1.threshold, tar: pct(at1.tar * c.genuine, c.genuine), far: pct(at1.far * c.impostor, c.impostor) },
      atPolicyPassThreshold: { threshold: pass.threshold, tar: pct(pass.tar * c.genuine, c.genuine), far: pct(pass.far * c.impostor, c.impostor) },
      roc: c.points.filter((_, i) => i % 5 === 0).map((p) => [p.threshold, r3(p.far), r3(p.tar)]),
    };
  }
  return result;
}

/** Frame rules to compare with all frames (EVAL_LIVENESS_PER_STEP, comma-separated: `6` per step, or `smile+3`: every smile frame, 3 of a pose's; `smile+8/ids3` or `all/ids3`: also the embedding only on `identityFrames`). */
const PER_STEP: FrameRule[] = (process.env.EVAL_LIVENESS_PER_STEP ?? '3,4,5,6,8,smile+2,smile+3,smile+4').split(',');

async function livenessSection(analyzer: HumanFaceAnalyzer, timeline: TimedFrame[]) {
  const selfie = (await analyzer.analyze(packageImage('franck_02221.jpg'))).faces[0].embedding;
  const doc = (await analyzer.analyze(await documentStyle(packageImage('franck_04000.jpg')))).faces[0].embedding;
  const refs = [selfie, doc];
  const other = [(await analyzer.analyze(packageImage('audrey.jpg'))).faces[0].embedding];
  const faces = timeline.filter((f) => f.analysis.faces.length === 1).map((f) => f.analysis.faces[0]);
  const measured = {
    frames: timeline.length,
    framesWithOneFace: faces.length,
    yawRange: [r3(Math.min(...faces.map((f) => f.yaw))), r3(Math.max(...faces.map((f) => f.yaw)))],
    pitchRange: [r3(Math.min(...faces.map((f) => f.pitch))), r3(Math.max(...faces.map((f) => f.pitch)))],
    happyMax: r3(Math.max(...faces.map((f) => f.happy))),
  };
  const actions: ChallengeAction[] = ['turn_left', 'turn_right', 'look_up', 'smile'];
  const windows = windowsOf(timeline, 0.5);
  const out: Record<string, unknown> = { measured, windows: windows.length };
  // The production policy asks for 20 degree turns; this video turns ~16 degrees, so the set is also run
  // with the turn threshold lowered to what the video shows (reported separately, never used in production).
  const perStep: Record<string, Record<FrameRule, { runs: number; sameVerdict: number; framesAnalysed: number; framesEmbedded: number; framesReceived: number; changed: string[] }>> = {};
  out.framesAnalysedPerStep = perStep;
  const variants = { production: biometricPolicy.liveness, videoTurn14: { ...biometricPolicy.liveness, turnYawDegrees: 14, lookUpPitchDegrees: 8 } };
  for (const [name, policy] of Object.entries(variants)) {
    const positive: Record<string, number[]> = {};
    for (const a of actions) positive[a] = windows.map((w, i) => (windowPasses(a, w, refs, policy) ? i : -1)).filter((i) => i >= 0);
    const neutral = windows.map((w, i) => i).filter((i) => actions.every((a) => !positive[a].includes(i)));
    const rand = seededRandom(17);
    const doable = actions.filter((a) => positive[a].length > 0);
    const challenges: { actions: ChallengeAction[]; windows: TimedFrame[][] }[] = [];
    for (let k = 0; k < 40 && doable.length >= 2; k++) {
      const n = doable.length >= 3 && rand() < 0.5 ? 3 : 2;
      const pick = [...doable].sort(() => rand() - 0.5).slice(0, n);
      challenges.push({ actions: pick, windows: pick.map((a) => windows[positive[a][Math.floor(rand() * positive[a].length)]]) });
    }
    // Every run is also decided on the frames the verifier analyses at each PER_STEP count (EmbeddedLivenessVerifier): a verdict that differs is what that count loses.
    const run = (acts: ChallengeAction[], ws: TimedFrame[][], references = refs) => {
      const c = challengeFromWindows(acts, ws);
      const all = verifyChallenge({ ...c, referenceEmbeddings: references, policy });
      for (const n of PER_STEP) {
        const kept = sampledChallenge(c, n, policy);
        const sampled = verifyChallenge({ ...kept, referenceEmbeddings: references, policy });
        const tally = (perStep[name] ??= {})[n] ??= { runs: 0, sameVerdict: 0, framesAnalysed: 0, framesEmbedded: 0, framesReceived: 0, changed: [] };
        tally.runs++;
        tally.framesAnalysed += kept.frames.length;
        tally.framesEmbedded += kept.analyses.filter((a) => a.embedded !== false).length;
        tally.framesReceived += c.frames.length;
        if (sampled.passed === all.passed) tally.sameVerdict++;
        else tally.changed.push(`${acts.join('+')}: all frames ${all.passed ? 'pass' : 'fail'}, ${n} per step ${sampled.passed ? 'pass' : `fail (${sampled.reason})`}`);
      }
      return all;
    };
    const genuine = challenges.map((c) => run(c.actions, c.windows));
    const neutralRuns = neutral.flatMap((i) => actions.map((a) => run([a], [windows[i]])));
    const otherPerson = challenges.map((c) => run(c.actions, c.windows, other));
    const reordered = challenges.filter((c) => c.actions[0] !== c.actions[1]).map((c) => run([c.actions[1], c.actions[0], ...c.actions.slice(2)], [c.windows[0], c.windows[1], ...c.windows.slice(2)]));
    out[name] = {
      policy: { turnYawDegrees: policy.turnYawDegrees, lookUpPitchDegrees: policy.lookUpPitchDegrees, smileHappy: policy.smileHappy },
      windowsAnsweringEachAction: Object.fromEntries(actions.map((a) => [a, positive[a].length])),
      genuineChallenges: { runs: genuine.length, passed: genuine.filter((g) => g.passed).length, failures: genuine.filter((g) => !g.passed).map((g) => g.reason).slice(0, 3) },
      neutralWindows: { runs: neutralRuns.length, passed: neutralRuns.filter((g) => g.passed).length },
      framesOfAnotherPerson: { runs: otherPerson.length, passed: otherPerson.filter((g) => g.passed).length },
      differentChallengeOrder: { runs: reordered.length, passed: reordered.filter((g) => g.passed).length },
    };
  }
  // A still photo moved by hand, and a flat photo turned in space, as the frames of a two-step challenge.
  const still = packageImage('franck_02221.jpg');
  const jitter = await jitteredStill(still, 16, seededRandom(5));
  const jitterFrames = await Promise.all(jitter.map(async (image, i) => ({ t: i * 0.375, image, analysis: await analyzer.analyze(image) })));
  const staticRun = verifyChallenge({ ...challengeFromWindows(['turn_left', 'smile'], [jitterFrames.slice(0, 8), jitterFrames.slice(8)].map((w) => w.map((f, i) => ({ ...f, t: i * 0.375 })))), referenceEmbeddings: refs, policy: variants.videoTurn14 });
  const turned: TimedFrame[] = [];
  const turnedYaw: [number, number | null][] = [];
  for (const deg of [0, 10, 20, 30, 40, 50, 60]) {
    const image = await turnedPhoto(still, deg);
    const analysis = await analyzer.analyze(image);
    turnedYaw.push([deg, analysis.faces[0] ? r3(analysis.faces[0].yaw) : null]);
    turned.push({ t: turned.length * 0.4, image, analysis });
  }
  const turnedRuns = (['turn_left', 'turn_right'] as const).map((a) => verifyChallenge({ ...challengeFromWindows([a], [turned]), referenceEmbeddings: refs, policy: variants.videoTurn14 }));
  const staticChallenge = challengeFromWindows(['turn_left', 'smile'], [jitterFrames.slice(0, 8), jitterFrames.slice(8)].map((w) => w.map((f, i) => ({ ...f, t: i * 0.375 }))));
  const turnedChallenges = (['turn_left', 'turn_right'] as const).map((a) => challengeFromWindows([a], [turned]));
  const attacksSampled = Object.fromEntries(
    PER_STEP.map((n) => [
      n,
      [staticChallenge, ...turnedChallenges].map((c) => verifyChallenge({ ...sampledChallenge(c, n, variants.videoTurn14), referenceEmbeddings: refs, policy: variants.videoTurn14 }).passed),
    ]),
  );
  out.staticPhotoWithJitter = { passed: staticRun.passed, reason: staticRun.reason };
  out.attacksPassedPerStep = { cases: ['still photo with jitter', 'photo turned (turn_left)', 'photo turned (turn_right)'], passed: attacksSampled };
  out.photoTurnedInSpace = { measuredYawByTurn: turnedYaw, passed: turnedRuns.filter((r) => r.passed).length, reasons: turnedRuns.map((r) => r.reason) };
  return out;
}

async function main() {
  const started = Date.now();
  const sections = new Set((process.env.EVAL_SECTIONS ?? 'mrz,liveness,face').split(','));
  const out: Record<string, unknown> = { policy: biometricPolicy.version, now: evalNow.toISOString() };
  if (sections.has('mrz')) {
    out.mrz = await mrzSection();
    process.stderr.write(`mrz done in ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
  if (sections.has('liveness') || sections.has('face')) {
    const analyzer = await HumanFaceAnalyzer.start();
    const timeline = await franckTimeline(analyzer, Number(process.env.EVAL_LIVENESS_FPS ?? 4), Number(process.env.EVAL_LIVENESS_SECONDS ?? 200));
    if (sections.has('liveness')) out.liveness = await livenessSection(analyzer, timeline);
    const sample = timeline.filter((_, i) => i % 40 === 0 && timeline[i].analysis.faces.length === 1);
    if (sections.has('face')) out.face = await faceSection(analyzer, sample);
  }
  console.log(JSON.stringify({ ...out, seconds: Math.round((Date.now() - started) / 1000) }, null, 2));
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
