import { CompareFacesCommand, type RekognitionClient } from '@aws-sdk/client-rekognition';
import type { FaceMatch, FaceMatcher, ImageInput, ModelRef } from '../check-providers';
import type { BiometricPolicy } from '../policy/biometric-policy';
import { awsCall } from './aws-call';

export const COMPARE_FACES_MODEL: ModelRef = { provider: 'aws', model: 'rekognition-compare-faces', version: '2016-06-27' };

/**
 * `face_match` by AWS Rekognition CompareFaces: the selfie is the source face, the document the target.
 * `Similarity` (0-100) is mapped to pass / review / fail by the versioned policy. Rekognition returns no
 * embedding, so no `face_match_template` comes from this engine.
 */
export class RekognitionFaceMatcher implements FaceMatcher {
  constructor(
    private readonly client: RekognitionClient,
    private readonly policy: BiometricPolicy,
    private readonly timeoutMs: number,
  ) {}

  async match(input: { document: ImageInput; selfie: ImageInput }): Promise<FaceMatch> {
    const model = COMPARE_FACES_MODEL;
    const p = this.policy.aws;
    const call = await awsCall(this.timeoutMs, model, (abortSignal) =>
      this.client.send(new CompareFacesCommand({ SourceImage: { Bytes: input.selfie.bytes }, TargetImage: { Bytes: input.document.bytes }, SimilarityThreshold: 0 }), { abortSignal }),
    );
    if (!call.ok) return call.result;
    const out = call.value;
    const best = Math.max(0, ...(out.FaceMatches ?? []).map((m) => m.Similarity ?? 0));
    const details = { policy: this.policy.version, matches: out.FaceMatches?.length ?? 0, unmatched: out.UnmatchedFaces?.length ?? 0 };
    if (!out.SourceImageFace) return { verdict: 'review', reason: 'No face was found on the selfie.', model, details };
    if (!out.FaceMatches?.length && !out.UnmatchedFaces?.length) return { verdict: 'review', reason: 'No face was found on the document photo.', model, details };
    const score = best / 100;
    const s = Math.round(best * 10) / 10;
    if (score >= p.compareFacesPassAtOrAbove)
      return { verdict: 'pass', score, reason: `The selfie matches the document photo (similarity ${s} of 100).`, model, details };
    if (score >= p.compareFacesReviewAtOrAbove)
      return { verdict: 'review', score, reason: `The selfie may not match the document photo (similarity ${s} of 100).`, model, details };
    return { verdict: 'fail', score, reason: `The selfie does not match the document photo (similarity ${s} of 100).`, model, details };
  }
}
