import type { ImageInput, LivenessChallenge, LivenessFrame, LivenessVerification, LivenessVerifier, ModelRef } from '../check-providers';
import type { BiometricPolicy } from '../policy/biometric-policy';
import { frameSequenceProblem, framesToAnalyse, verifyChallenge } from './challenge-verifier';
import type { FaceAnalyzer } from './face-analysis';

/** More frames than this in one submission are refused before any inference (bounds a task's time and memory). */
export const MAX_LIVENESS_FRAMES = 120;

/**
 * Frames of each step that get a face analysis, evenly spread (docs/checks.md, "Frames analysed per
 * step"): the liveness evaluation gives every clip the same verdict with 5 as with all of them, and a
 * T2 session's liveness costs about half the analyses the page's 8 frames per step cost.
 */
export const FRAMES_ANALYSED_PER_STEP = 5;

/**
 * `liveness` offline: measures every frame with the face model (pose, expression, embedding) and decides
 * with the challenge rules of `verifyChallenge` (docs/checks.md "Liveness").
 */
export class EmbeddedLivenessVerifier implements LivenessVerifier {
  constructor(
    private readonly analyzer: FaceAnalyzer,
    private readonly policy: BiometricPolicy,
    private readonly model: ModelRef,
    private readonly framesPerStep: number = FRAMES_ANALYSED_PER_STEP,
  ) {}

  async verify(input: { challenge: LivenessChallenge; frames: LivenessFrame[]; referenceFaces: ImageInput[] }): Promise<LivenessVerification> {
    const model = this.model;
    if (input.frames.length > MAX_LIVENESS_FRAMES)
      return { verdict: 'fail', reason: `Too many frames (${input.frames.length}, at most ${MAX_LIVENESS_FRAMES}).`, model };
    // A replayed or mistimed capture fails on its stamps alone, before any inference.
    const sequence = frameSequenceProblem(input.challenge, input.frames, this.policy.liveness);
    if (sequence) return { verdict: 'fail', score: 0, reason: sequence, model, details: { policy: this.policy.version, frames: input.frames.length } };
    const frames = framesToAnalyse(input.frames, this.framesPerStep).map((i) => input.frames[i]);
    const references = [];
    for (const ref of input.referenceFaces) {
      const a = await this.analyzer.analyze(ref);
      if (a.faces.length === 1) references.push(a.faces[0].embedding);
    }
    const analyses = [];
    for (const f of frames) analyses.push(await this.analyzer.analyze(f.image));
    const outcome = verifyChallenge({ challenge: input.challenge, frames, analyses, referenceEmbeddings: references, policy: this.policy.liveness });
    return {
      verdict: outcome.passed ? 'pass' : 'fail',
      score: outcome.minIdentity,
      reason: outcome.reason,
      model,
      template: outcome.template,
      details: { policy: this.policy.version, ...outcome.details, framesReceived: input.frames.length },
    };
  }
}
