import type { ImageInput } from '../check-providers';

/** One face as the face model saw it. Angles in degrees, signed as docs/checks.md "Liveness" says. */
export type DetectedFace = {
  /** Pixels: x, y, width, height in the analysed image. */
  box: [number, number, number, number];
  /** Detector confidence 0..1. */
  score: number;
  /** The 2D face embedding (faceres), L2-normalised; empty when the analysis was asked for without it (`AnalysisParts`). */
  embedding: number[];
  /** Negative when the subject turns to their own left. */
  yaw: number;
  /** Negative when the subject looks up. */
  pitch: number;
  /** Expression score 0..1 of `happy` (a smile). */
  happy: number;
  /** Variance of the Laplacian of the face crop (grey levels): low is blurred. */
  sharpness: number;
  /** The package's small anti-spoof models, 0..1; recorded, never used to decide (docs/checks.md). */
  real?: number;
  live?: number;
};

/**
 * What an analysis measured: `embedding: false` skips the embedding model (faceres), about 60 % of an
 * analysis's CPU; the detector, mesh (pose), expression and anti-spoof models run whatever is asked, and give
 * the same figures either way. Leaving it out asks for everything.
 */
export type AnalysisParts = { embedding?: boolean };

/** `embedded`: whether the faces carry their embeddings (an analysis without them has `embedding: []` on every face). */
export type FaceAnalysis = { width: number; height: number; faces: DetectedFace[]; embedded?: boolean };

/** Whether an analysis has what `parts` asks for. */
export const analysisHas = (a: FaceAnalysis, parts: AnalysisParts = {}): boolean => parts.embedding === false || a.embedded !== false;

/** What the face engines need from a face model; the worker's Human instance implements it, tests hand fakes. */
export interface FaceAnalyzer {
  analyze(image: ImageInput, parts?: AnalysisParts): Promise<FaceAnalysis>;
}

/** Cosine similarity of two embeddings (both L2-normalised by the analyser, so a dot product), clamped to 0..1. */
export function faceSimilarity(a: number[], b: number[]): number {
  if (a.length !== b.length || a.length === 0) throw new Error('embeddings of different sizes');
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  const cos = dot / (Math.sqrt(na) * Math.sqrt(nb) || 1);
  return Math.max(0, Math.min(1, cos));
}

/** Mean of embeddings, L2-normalised: the template kept for a set of frames. */
export function meanEmbedding(embeddings: number[][]): number[] {
  const n = embeddings[0]?.length ?? 0;
  const sum = new Array<number>(n).fill(0);
  for (const e of embeddings) for (let i = 0; i < n; i++) sum[i] += e[i];
  const norm = Math.sqrt(sum.reduce((s, v) => s + v * v, 0)) || 1;
  return sum.map((v) => v / norm);
}
