import type { ChallengeAction, LivenessChallenge, LivenessFrame } from '../check-providers';
import type { BiometricPolicy } from '../policy/biometric-policy';
import { faceSimilarity, meanEmbedding, type FaceAnalysis } from './face-analysis';

export type ChallengeOutcome = {
  passed: boolean;
  reason: string;
  /** Lowest identity similarity of any frame against any reference face (0 when none was measured). */
  minIdentity: number;
  template?: number[];
  details: Record<string, unknown>;
};

type StepFrame = { frame: LivenessFrame; analysis: FaceAnalysis };

const fail = (reason: string, details: Record<string, unknown>, minIdentity = 0): ChallengeOutcome => ({ passed: false, reason, minIdentity, details });

/**
 * The measure an action moves, oriented so that "beyond" is larger. Head poses count from the step's
 * first frame (a camera seldom faces a person squarely: a frontal face measured -6 degrees of yaw in
 * the evaluation video); a smile is an absolute expression score that must start below `neutral`.
 */
export function actionMeasure(action: ChallengeAction, p: BiometricPolicy['liveness']): { of: (f: FaceAnalysis) => number; relative: boolean; beyond: number; neutral: number; label: string } {
  const face = (f: FaceAnalysis) => f.faces[0];
  switch (action) {
    case 'turn_left':
      return { of: (f) => -face(f).yaw, relative: true, beyond: p.turnYawDegrees, neutral: 0, label: 'turn to the left (degrees)' };
    case 'turn_right':
      return { of: (f) => face(f).yaw, relative: true, beyond: p.turnYawDegrees, neutral: 0, label: 'turn to the right (degrees)' };
    case 'look_up':
      return { of: (f) => -face(f).pitch, relative: true, beyond: p.lookUpPitchDegrees, neutral: 0, label: 'tilt upwards (degrees)' };
    case 'smile':
      return { of: (f) => face(f).happy, relative: false, beyond: p.smileHappy, neutral: p.neutralHappy, label: 'happy score' };
  }
}

const range = (xs: number[]) => (xs.length ? Math.max(...xs) - Math.min(...xs) : 0);
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * Frame `f` was captured after `prev`: received later, or received at the same time (frames uploaded in the
 * grace period after their step closed all count at the close) with a later stamp of the page's own. A
 * slow connection that sends a step's last frames late is not taken for frames out of order (issue 47's
 * proof run: a T2 session on a loaded machine was declined so).
 */
const capturedAfter = (f: LivenessFrame, prev: LivenessFrame) =>
  f.capturedAt > prev.capturedAt || (f.capturedAt === prev.capturedAt && f.clientCapturedAt !== undefined && prev.clientCapturedAt !== undefined && f.clientCapturedAt > prev.clientCapturedAt);

/**
 * Whether frame `f` reached the server while its step was open. The checks' time of a frame is its arrival,
 * and a frame that arrived in the upload grace after its step closed counts at the close
 * (`hosted-flow.service.ts`), so a time at or after the close means late. A late frame may have been made
 * up to 30 s after the step told the page its action, so it never helps a step pass: a step's minimum of
 * frames, its action and the capture's movement are read from the frames that arrived in time; late
 * frames are still checked (one face, the same person), so they can only decline.
 */
export function arrivedInWindow(challenge: LivenessChallenge, f: LivenessFrame): boolean {
  const step = challenge.steps[f.stepIndex];
  return step !== undefined && f.capturedAt < step.closesAt;
}

/** The indices of step `s`'s frames that arrived while it was open (`arrivedInWindow`), in order. */
function stepFramesInWindow(challenge: LivenessChallenge, frames: readonly LivenessFrame[], s: number): number[] {
  return frames.flatMap((f, i) => (f.stepIndex === s && arrivedInWindow(challenge, f) ? [i] : []));
}

/**
 * Why the frames cannot answer this challenge whatever they show (a step it does not have, another
 * challenge's nonce, outside the step's window, out of order, a step with too few frames that arrived while
 * it was open), or null. Needs no face analysis, so
 * the verifier asks it of every frame received before it analyses any.
 */
export function frameSequenceProblem(challenge: LivenessChallenge, frames: readonly LivenessFrame[], policy: BiometricPolicy['liveness']): string | null {
  for (const [i, f] of frames.entries()) {
    const step = challenge.steps[f.stepIndex];
    if (!step) return `Frame ${i} names step ${f.stepIndex}, which this challenge does not have.`;
    if (f.nonce !== step.nonce) return `Frame ${i} carries a nonce that is not step ${f.stepIndex}'s: frames replayed from another challenge.`;
    if (f.capturedAt < step.opensAt - policy.clockSkewMs || f.capturedAt > step.closesAt + policy.clockSkewMs) return `Frame ${i} was captured outside step ${f.stepIndex}'s window.`;
    const prev = frames[i - 1];
    if (prev && (f.stepIndex < prev.stepIndex || !capturedAfter(f, prev))) return `Frames are out of order: frame ${i} comes before frame ${i - 1} in time or step.`;
  }
  for (const [s, step] of challenge.steps.entries()) {
    const inWindow = stepFramesInWindow(challenge, frames, s).length;
    if (inWindow >= policy.minFramesPerStep) continue;
    const after = frames.filter((f) => f.stepIndex === s).length - inWindow;
    const lateNote = after > 0 ? ` (${after} more arrived after it closed, and count only against a pass)` : '';
    return `Too few frames for step ${s} (${step.action}) arrived inside its window: ${inWindow}, at least ${policy.minFramesPerStep} needed${lateNote}.`;
  }
  return null;
}

/**
 * How many of a step's frames get a face analysis: one count for every step, or a count per step (by its
 * index in the challenge), as `framesPerAction` makes one from the step's action.
 */
export type FrameBudget = number | ((stepIndex: number) => number);

/**
 * The indices of the frames to analyse: at most the budget's count of each step's frames, evenly spread
 * over the step and always its first and last (head poses count from the step's first frame). A step
 * with that many frames or fewer keeps them all. Face analysis is a liveness check's cost; this
 * bounds it whatever frame rate the page captured at (docs/checks.md, "Frames analysed per step").
 */
export function framesToAnalyse(frames: readonly LivenessFrame[], budget: FrameBudget, challenge?: LivenessChallenge): number[] {
  const byStep = new Map<number, { inWindow: number[]; late: number[] }>();
  frames.forEach((f, i) => {
    const step = byStep.get(f.stepIndex) ?? { inWindow: [], late: [] };
    byStep.set(f.stepIndex, step);
    (challenge && !arrivedInWindow(challenge, f) ? step.late : step.inWindow).push(i);
  });
  /** At most `count` of `list`, evenly spread, its first and last among them. */
  const spread = (list: number[], count: number) =>
    list.length <= count ? list : count <= 1 ? list.slice(0, count) : Array.from({ length: count }, (_, k) => list[Math.round((k * (list.length - 1)) / (count - 1))]);
  const picked: number[] = [];
  for (const [stepIndex, { inWindow, late }] of byStep) {
    const perStep = Math.max(2, typeof budget === 'number' ? budget : budget(stepIndex));
    // With the challenge, the frames that arrived in the window come first (they alone can pass the step);
    // late frames take what the budget leaves (they are checked, and can only decline).
    const kept = spread(inWindow, perStep);
    picked.push(...kept, ...spread(late, perStep - kept.length));
  }
  return picked.sort((a, b) => a - b);
}

/**
 * A budget by the step's action: `smile` keeps every frame (a smile's peak lasts one or two frames at
 * 4 frames/s, and an even spread steps over it), a head pose keeps `poseFrames` (a turn is held).
 */
export function framesPerAction(challenge: LivenessChallenge, poseFrames: number): (stepIndex: number) => number {
  return (stepIndex) => (challenge.steps[stepIndex]?.action === 'smile' ? Number.POSITIVE_INFINITY : poseFrames);
}

/**
 * The frames (indices into `frames`) whose faces are compared with the references: `perStep` of each step's
 * frames, evenly spread, its first and last among them (`framesToAnalyse`), and the frames that decide each
 * step as `verifyChallenge` reads them: the step's first frame (a head pose counts from it), the first frame
 * beyond the threshold (the action shown) and, for a smile, the last neutral frame before it. So whoever
 * performed the action is the person of the references, and the embedding model (most of an analysis's CPU)
 * runs on a few frames a step rather than all. `analyses` need not carry embeddings; a step whose frames do
 * not each show one face adds only its spread frames (it fails on the face count anyway).
 */
export function identityFrames(challenge: LivenessChallenge, frames: readonly LivenessFrame[], analyses: readonly FaceAnalysis[], policy: BiometricPolicy['liveness'], perStep: number): number[] {
  const picked = new Set(framesToAnalyse(frames, perStep, challenge));
  for (const [s, step] of challenge.steps.entries()) {
    const list = stepFramesInWindow(challenge, frames, s);
    if (list.length === 0 || list.some((i) => analyses[i].faces.length !== 1)) continue;
    const m = actionMeasure(step.action, policy);
    const raw = list.map((i) => m.of(analyses[i]));
    const values = m.relative ? raw.map((v) => v - raw[0]) : raw;
    const firstBeyond = values.findIndex((v) => v >= m.beyond);
    picked.add(list[0]);
    if (firstBeyond < 0) continue;
    picked.add(list[firstBeyond]);
    if (!m.relative) {
      const lastNeutral = values.slice(0, firstBeyond).findLastIndex((v) => v < m.neutral);
      if (lastNeutral >= 0) picked.add(list[lastNeutral]);
    }
  }
  return [...picked].sort((a, b) => a - b);
}

/**
 * Decides a randomised liveness challenge from per-frame face measurements. Order of the checks: the
 * frames must belong to this challenge (nonce), be stamped inside their step's window and in order,
 * be enough, show one face each, be the same person as the references, move at all, and each step's
 * measure must cross its threshold inside the step (from a neutral frame to a frame beyond it).
 * The first failure is the reason; `details` keeps every step's figures for a reviewer.
 */
export function verifyChallenge(input: {
  challenge: LivenessChallenge;
  frames: LivenessFrame[];
  analyses: FaceAnalysis[];
  referenceEmbeddings: number[][];
  policy: BiometricPolicy['liveness'];
}): ChallengeOutcome {
  const { challenge, frames, analyses, referenceEmbeddings, policy } = input;
  const steps = challenge.steps;
  const details: Record<string, unknown> = { frames: frames.length, steps: steps.map((s) => s.action) };
  if (steps.length === 0) return fail('The challenge has no steps.', details);

  const sequence = frameSequenceProblem(challenge, frames, policy);
  if (sequence) return fail(sequence, details);

  // Each step's frames that arrived while it was open (at least `minFramesPerStep`, frameSequenceProblem): they
  // alone can show that the step was performed.
  const byStep: StepFrame[][] = steps.map((_, s) => stepFramesInWindow(challenge, frames, s).map((i) => ({ frame: frames[i], analysis: analyses[i] })));
  const late = frames.filter((f) => !arrivedInWindow(challenge, f)).length;
  if (late > 0) details.framesAfterWindow = late;

  for (const [i, a] of analyses.entries())
    if (a.faces.length !== 1) return fail(`Frame ${i} shows ${a.faces.length} faces; exactly one is needed.`, details);

  if (referenceEmbeddings.length === 0) return fail('No reference face (selfie or document photo) to compare the frames with.', details);
  // Identity is measured on the frames whose analysis carries an embedding (`identityFrames`): every step needs one.
  const embedded = (a: FaceAnalysis) => a.faces[0].embedding.length > 0;
  for (const [s, list] of byStep.entries())
    if (!list.some((x) => embedded(x.analysis))) return fail(`No frame of step ${s} (${steps[s].action}) was measured for identity.`, details);
  details.identityFrames = analyses.filter(embedded).length;
  let minIdentity = 1;
  let worstFrame = 0;
  for (const [i, a] of analyses.entries())
    for (const ref of embedded(a) ? referenceEmbeddings : []) {
      const sim = faceSimilarity(a.faces[0].embedding, ref);
      if (sim < minIdentity) [minIdentity, worstFrame] = [sim, i];
    }
  details.minIdentity = round(minIdentity);
  if (minIdentity < policy.identityAtOrAbove)
    return fail(`Frame ${worstFrame} is not the person of the selfie and document (similarity ${round(minIdentity, 2)} < ${policy.identityAtOrAbove}).`, details, minIdentity);

  const faces = byStep.flat().map((x) => x.analysis.faces[0]);
  const yawRange = range(faces.map((f) => f.yaw));
  const pitchRange = range(faces.map((f) => f.pitch));
  const happyRange = range(faces.map((f) => f.happy));
  details.ranges = { yaw: round(yawRange, 1), pitch: round(pitchRange, 1), happy: round(happyRange) };
  if (yawRange < policy.staticMaxRangeDegrees && pitchRange < policy.staticMaxRangeDegrees && happyRange < policy.staticMaxHappyRange)
    return fail(`The face did not move across ${faces.length} frames (yaw range ${round(yawRange, 1)}°, pitch ${round(pitchRange, 1)}°): a static image.`, details, minIdentity);

  const stepFigures: Record<string, unknown>[] = [];
  details.stepFigures = stepFigures;
  for (const [s, list] of byStep.entries()) {
    const m = actionMeasure(steps[s].action, policy);
    const raw = list.map((x) => m.of(x.analysis));
    const values = m.relative ? raw.map((v) => v - raw[0]) : raw;
    const firstBeyond = values.findIndex((v) => v >= m.beyond);
    const neutralBefore = m.relative || (firstBeyond > 0 && values.slice(0, firstBeyond).some((v) => v < m.neutral));
    stepFigures.push({ step: s, action: steps[s].action, measure: m.label, min: round(Math.min(...values), 2), max: round(Math.max(...values), 2), threshold: m.beyond });
    if (firstBeyond < 0)
      return fail(`Step ${s} (${steps[s].action}) was not performed: ${m.label} reached ${round(Math.max(...values), 2)}${m.relative ? ' from the step\'s first frame' : ''}, ${m.beyond} needed inside its window.`, details, minIdentity);
    if (!neutralBefore)
      return fail(`Step ${s} (${steps[s].action}) did not start from a neutral face: the ${m.label} was already ${m.neutral} or more when the step opened.`, details, minIdentity);
  }

  return {
    passed: true,
    reason: `Every step (${steps.map((s) => s.action).join(', ')}) was performed inside its window by the person of the selfie and document (lowest similarity ${round(minIdentity, 2)}).`,
    minIdentity,
    template: meanEmbedding(faces.map((f) => f.embedding).filter((e) => e.length > 0)),
    details,
  };
}
