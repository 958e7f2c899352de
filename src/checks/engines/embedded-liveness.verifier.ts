import type { ImageInput, LivenessChallenge, LivenessFrame, LivenessVerification, LivenessVerifier, ModelRef } from '../check-providers';
import type { BiometricPolicy } from '../policy/biometric-policy';
import { arrivedInWindow, frameSequenceProblem, framesPerAction, framesToAnalyse, identityFrames, verifyChallenge, type FrameBudget } from './challenge-verifier';
import type { FaceAnalyzer } from './face-analysis';

/** More frames than this in one submission are refused before any inference (bounds a task's time and memory). */
export const MAX_LIVENESS_FRAMES = 120;

/** Frames of a head-pose step (turn, look up) that get a face analysis, evenly spread, the first and last always among them. */
export const POSE_FRAMES_ANALYSED = 8;

/**
 * Frames of each step that get a face analysis (`framesToAnalyse`): every frame of a smile step, and
 * `POSE_FRAMES_ANALYSED` of a head pose's (`framesPerAction`). A smile's peak lasts one or two frames at 4
 * frames/s, so an even spread steps over it: every fixed count per step from 3 to 8 of 12 lost genuine smiles
 * on the liveness evaluation (8 lost 1 of 40, 5 lost 7 and let a neutral window pass). A turn or a tilt is
 * held: with every smile frame and 8 of each pose's, all 1,512 runs of the production policy and all 1,464 of
 * the video-sized one (turns and tilts barely past their thresholds) keep their verdict, attacks included;
 * 3 to 6 of a pose's already lose nothing on the production policy but lose barely-crossed poses on the
 * video-sized one (docs/benchmarks.md, "A frame budget by action"). A T2 challenge of 2-3 steps of 12 frames
 * is analysed on 16-28 frames rather than 24-36.
 */
export const FRAMES_ANALYSED_PER_STEP = (challenge: LivenessChallenge): FrameBudget => framesPerAction(challenge, POSE_FRAMES_ANALYSED);

/**
 * Frames of each step, evenly spread, whose faces are compared with the references, besides the frames that
 * decide the step (`identityFrames`: its first frame, the first beyond the threshold, a smile's last neutral
 * one). The embedding model is about 60 % of a face analysis's CPU, and it decides no step, only identity; the
 * other analysed frames are measured without it (docs/benchmarks.md, "Identity on the frames that decide").
 */
export const IDENTITY_FRAMES_PER_STEP = 3;

/**
 * `liveness` offline: measures the frames `FRAMES_ANALYSED_PER_STEP` keeps with the face model (pose and expression; the embedding on
 * `identityFrames`) and decides
 * with the challenge rules of `verifyChallenge` (docs/checks.md "Liveness").
 */
export class EmbeddedLivenessVerifier implements LivenessVerifier {
  constructor(
    private readonly analyzer: FaceAnalyzer,
    private readonly policy: BiometricPolicy,
    private readonly model: ModelRef,
    private readonly framesPerStep: (challenge: LivenessChallenge) => FrameBudget = FRAMES_ANALYSED_PER_STEP,
    private readonly identityPerStep: number = IDENTITY_FRAMES_PER_STEP,
  ) {}

  async verify(input: { challenge: LivenessChallenge; frames: LivenessFrame[]; referenceFaces: ImageInput[] }): Promise<LivenessVerification> {
    const model = this.model;
    if (input.frames.length > MAX_LIVENESS_FRAMES)
      return { verdict: 'fail', reason: `Too many frames (${input.frames.length}, at most ${MAX_LIVENESS_FRAMES}).`, model };
    // A replayed or mistimed capture fails on its stamps alone, before any inference.
    const sequence = frameSequenceProblem(input.challenge, input.frames, this.policy.liveness);
    if (sequence) return { verdict: 'fail', score: 0, reason: sequence, model, details: { policy: this.policy.version, frames: input.frames.length } };
    const frames = framesToAnalyse(input.frames, this.framesPerStep(input.challenge), input.challenge).map((i) => input.frames[i]);
    const references = [];
    for (const ref of input.referenceFaces) {
      const a = await this.analyzer.analyze(ref);
      if (a.faces.length === 1) references.push(a.faces[0].embedding);
    }
    // Pose and expression on every frame kept, the embedding on the evenly spread ones first; then on the
    // frames that turn out to decide a step (their measures are the same with or without the embedding).
    const spread = new Set(framesToAnalyse(frames, this.identityPerStep, input.challenge));
    const analyses = [];
    for (const [i, f] of frames.entries()) analyses.push(await this.analyzer.analyze(f.image, { embedding: spread.has(i) }));
    for (const i of identityFrames(input.challenge, frames, analyses, this.policy.liveness, this.identityPerStep))
      if (!spread.has(i)) analyses[i] = await this.analyzer.analyze(frames[i].image);
    const late = input.frames.filter((f) => !arrivedInWindow(input.challenge, f)).length;
    const outcome = verifyChallenge({ challenge: input.challenge, frames, analyses, referenceEmbeddings: references, policy: this.policy.liveness });
    return {
      verdict: outcome.passed ? 'pass' : 'fail',
      score: outcome.minIdentity,
      reason: outcome.reason,
      model,
      template: outcome.template,
      // Counted over every frame received (the outcome's count is of the frames analysed).
      details: { policy: this.policy.version, ...outcome.details, framesReceived: input.frames.length, ...(late > 0 ? { framesAfterWindow: late } : {}) },
    };
  }
}
