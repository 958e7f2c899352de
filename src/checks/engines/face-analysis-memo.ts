import { createHash } from 'node:crypto';
import type { ImageInput } from '../check-providers';
import { analysisHas, type AnalysisParts, type FaceAnalysis, type FaceAnalyzer } from './face-analysis';

/** Face analyses by the SHA-256 (hex) of the image bytes analysed. */
export type KnownFaceAnalyses = Record<string, FaceAnalysis>;

/** The key of an image's analysis: the SHA-256 (hex) of its bytes. */
export const faceAnalysisKey = (image: ImageInput): string => createHash('sha256').update(image.bytes).digest('hex');

/**
 * A face analyser that analyses each distinct image once: an image whose bytes were analysed before (in
 * `known`, or earlier through this instance) gets that analysis back. The model gives the same bytes the same
 * analysis (HumanFaceAnalyzer: `cacheSensitivity: 0`, no state between images), so a verdict cannot change.
 * One session's checks analyse the selfie three times (face_match, the liveness references, anti_spoof), the
 * document photo twice and the first liveness frames twice (liveness, anti_spoof): with the analyses of the
 * session's earlier checks in `known`, each is analysed once (docs/checks.md, "One analysis per image").
 * An analysis made without the embedding serves a later call that does not ask for it either; one that asks
 * for it gets a full analysis, which then serves every later call (the richest analysis is kept).
 */
export class MemoFaceAnalyzer implements FaceAnalyzer {
  /** What this instance analysed itself (not what it was given): handed to the session's next check. */
  readonly computed: KnownFaceAnalyses = {};

  constructor(
    private readonly inner: FaceAnalyzer,
    private readonly known: KnownFaceAnalyses = {},
  ) {}

  async analyze(image: ImageInput, parts?: AnalysisParts): Promise<FaceAnalysis> {
    const key = faceAnalysisKey(image);
    const seen = [this.computed[key], this.known[key]].find((a) => a && analysisHas(a, parts));
    if (seen) return seen;
    const analysis = await this.inner.analyze(image, parts);
    this.computed[key] = analysis;
    return analysis;
  }
}
