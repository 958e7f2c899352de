import type { ImageInput, LivenessChallenge, LivenessFrame, LivenessVerification, LivenessVerifier, ModelRef } from '../check-providers';
import type { BiometricPolicy } from '../policy/biometric-policy';
import { frameSequenceProblem, framesToAnalyse, verifyChallenge } from './challenge-verifier';
import type { FaceAnalyzer } from './face-analysis';

/** More frames than this in one submission are refused before any inference (bounds a task's time and memory). */
export const MAX_LIVENESS_FRAMES = 120;

/**
 * Frames of each step that get a face analysis, evenly spread (`framesToAnalyse`): every frame. The
 * liveness evaluation decided each of its 1,512 runs on 3-8 frames per step of 12 as well: every count
 * below all of them lost genuine passes (a smile's peak lasts one or two frames; 8 per step lost 1 of 40
 * genuine challenges, 5 lost 7) and 5 let one neutral window pass a smile step (docs/benchmarks.md, "T2
 * decision"). A fewer-frames verifier is a constructor argument away once a rule that cannot miss a peak exists.
 */
export const FRAMES_ANALYSED_PER_STEP = MAX_LIVENESS_FRAMES;

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
