import type { ImageInput, ModelRef, PresentationAttackDetector, ProviderResult } from '../check-providers';
import type { FaceAnalyzer } from './face-analysis';

const round = (x: number | undefined) => (x === undefined ? null : Math.round(x * 1000) / 1000);

/**
 * `anti_spoof` offline: no openly licensed model that can gate a decision runs offline (the small
 * antispoof/liveness models in Human score real faces 0.74, screen replays 0.64, prints 0.77, drawings
 * 0.85-0.90: docs/checks.md "Anti-spoof"). So this detector always answers `unknown`, keeping the raw
 * scores for a reviewer; the decision policy never treats `unknown` as a pass.
 */
export class EmbeddedAttackDetector implements PresentationAttackDetector {
  constructor(
    private readonly analyzer: FaceAnalyzer,
    private readonly model: ModelRef,
  ) {}

  async detect(input: { selfie: ImageInput; frames: ImageInput[] }): Promise<ProviderResult> {
    const scores = [];
    for (const image of [input.selfie, ...input.frames.slice(0, 5)]) {
      // The anti-spoof scores need no embedding (the liveness check measured these frames without one).
      const a = await this.analyzer.analyze(image, { embedding: false });
      const f = a.faces[0];
      scores.push({ faces: a.faces.length, real: round(f?.real), live: round(f?.live) });
    }
    return {
      verdict: 'unknown',
      reason: 'No offline presentation-attack model can gate a decision: the raw scores are recorded for a reviewer, and a managed detector is needed to pass this check.',
      model: this.model,
      details: { scores, note: 'raw Human antispoof (real) and liveness (live) scores, not calibrated' },
    };
  }
}
