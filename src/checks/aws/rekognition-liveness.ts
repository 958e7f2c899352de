import { GetFaceLivenessSessionResultsCommand, type GetFaceLivenessSessionResultsCommandOutput, type RekognitionClient } from '@aws-sdk/client-rekognition';
import type { ImageInput, LivenessChallenge, LivenessFrame, LivenessVerification, LivenessVerifier, ModelRef, PresentationAttackDetector, ProviderResult } from '../check-providers';
import type { BiometricPolicy } from '../policy/biometric-policy';
import { awsCall } from './aws-call';

export const FACE_LIVENESS_MODEL: ModelRef = { provider: 'aws', model: 'rekognition-face-liveness', version: '2016-06-27' };

/**
 * AWS Rekognition Face Liveness: its own client component runs on the page and the server fetches the
 * result by session id. One result answers both `liveness` and `anti_spoof` (the service checks for
 * prints, screens and masks). `SUCCEEDED` with `Confidence` at or above the policy's threshold passes;
 * a lower confidence or `FAILED`/`EXPIRED` fails; a session still `CREATED`/`IN_PROGRESS`, a missing
 * session id or a failed call is `error`.
 */
export class RekognitionFaceLiveness implements LivenessVerifier, PresentationAttackDetector {
  constructor(
    private readonly client: RekognitionClient,
    private readonly policy: BiometricPolicy,
    private readonly timeoutMs: number,
  ) {}

  async verify(input: { challenge: LivenessChallenge; frames: LivenessFrame[]; referenceFaces: ImageInput[]; managedSessionId?: string }): Promise<LivenessVerification> {
    return this.judge(input.managedSessionId, 'live person');
  }

  async detect(input: { selfie: ImageInput; frames: ImageInput[]; managedSessionId?: string }): Promise<ProviderResult> {
    return this.judge(input.managedSessionId, 'live person, not a print, screen or mask');
  }

  private async judge(sessionId: string | undefined, what: string): Promise<ProviderResult> {
    const model = FACE_LIVENESS_MODEL;
    if (!sessionId) return { verdict: 'error', reason: 'No Face Liveness session id was captured for this session.', model };
    const call = await awsCall(this.timeoutMs, model, (abortSignal) => this.client.send(new GetFaceLivenessSessionResultsCommand({ SessionId: sessionId }), { abortSignal }));
    if (!call.ok) return call.result;
    return this.verdictOf(call.value, what);
  }

  private verdictOf(out: GetFaceLivenessSessionResultsCommandOutput, what: string): ProviderResult {
    const model = FACE_LIVENESS_MODEL;
    const threshold = this.policy.aws.faceLivenessPassAtOrAbove;
    const confidence = out.Confidence;
    const details = { policy: this.policy.version, status: out.Status, confidence, auditImages: out.AuditImages?.length ?? 0 };
    const score = confidence === undefined ? undefined : confidence / 100;
    switch (out.Status) {
      case 'SUCCEEDED':
        if (score !== undefined && score >= threshold)
          return { verdict: 'pass', score, reason: `Face Liveness found a ${what} (confidence ${confidence!.toFixed(1)} of 100).`, model, details };
        return { verdict: 'fail', score, reason: `Face Liveness confidence ${confidence?.toFixed(1) ?? 'none'} of 100 is below ${threshold * 100}.`, model, details };
      case 'FAILED':
      case 'EXPIRED':
        return { verdict: 'fail', score, reason: `The Face Liveness session ${out.Status.toLowerCase()}.`, model, details };
      default:
        return { verdict: 'error', reason: `The Face Liveness session is not finished (${out.Status ?? 'no status'}).`, model, details };
    }
  }
}
