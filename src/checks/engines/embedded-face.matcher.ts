import type { FaceMatch, FaceMatcher, ImageInput, ModelRef } from '../check-providers';
import type { BiometricPolicy } from '../policy/biometric-policy';
import { faceSimilarity, type DetectedFace, type FaceAnalysis, type FaceAnalyzer } from './face-analysis';

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** Why a face image cannot be compared, or undefined when it passes the quality gates. */
export function qualityProblem(a: FaceAnalysis, what: string, minSide: number, p: BiometricPolicy['faceMatch']): string | undefined {
  if (a.faces.length === 0) return `No face was found on the ${what}.`;
  if (a.faces.length > 1) return `The ${what} shows ${a.faces.length} faces; exactly one is needed.`;
  const f: DetectedFace = a.faces[0];
  if (f.score < p.minDetectorScore) return `The face on the ${what} is not clear enough (detector confidence ${round(f.score, 2)}).`;
  const side = Math.min(f.box[2], f.box[3]);
  if (side < minSide) return `The face on the ${what} is too small (${Math.round(side)} px, at least ${minSide} px needed).`;
  if (f.sharpness < p.minSharpness) return `The face on the ${what} is blurred (sharpness ${round(f.sharpness, 1)}, at least ${p.minSharpness} needed).`;
  return undefined;
}

/**
 * `face_match` offline: quality gates on both images (exactly one face, minimum size, not blurred), then
 * the cosine similarity of the two faceres embeddings mapped to pass / review / fail by the versioned
 * policy (src/checks/policy/biometric-policy.v1.json). A failed gate is `review`: a person should retake
 * or look, not be declined by a bad photo.
 */
export class EmbeddedFaceMatcher implements FaceMatcher {
  constructor(
    private readonly analyzer: FaceAnalyzer,
    private readonly policy: BiometricPolicy,
    private readonly model: ModelRef,
  ) {}

  async match(input: { document: ImageInput; selfie: ImageInput }): Promise<FaceMatch> {
    const p = this.policy.faceMatch;
    const model = this.model;
    const [doc, selfie] = [await this.analyzer.analyze(input.document), await this.analyzer.analyze(input.selfie)];
    const problem = qualityProblem(doc, 'document photo', p.minFaceSidePxDocument, p) ?? qualityProblem(selfie, 'selfie', p.minFaceSidePx, p);
    const details = { policy: this.policy.version, documentFaces: doc.faces.length, selfieFaces: selfie.faces.length };
    if (problem) return { verdict: 'review', reason: problem, model, details };
    const score = faceSimilarity(doc.faces[0].embedding, selfie.faces[0].embedding);
    const s = round(score, 2);
    const template = selfie.faces[0].embedding;
    const figures = { ...details, similarity: round(score), passAtOrAbove: p.passAtOrAbove, reviewAtOrAbove: p.reviewAtOrAbove };
    if (score >= p.passAtOrAbove)
      return { verdict: 'pass', score, reason: `The selfie matches the document photo (similarity ${s} >= ${p.passAtOrAbove}).`, model, template, details: figures };
    if (score >= p.reviewAtOrAbove)
      return { verdict: 'review', score, reason: `The selfie may not match the document photo (similarity ${s}, pass at ${p.passAtOrAbove}).`, model, template, details: figures };
    return { verdict: 'fail', score, reason: `The selfie does not match the document photo (similarity ${s} < ${p.reviewAtOrAbove}).`, model, template, details: figures };
  }
}
