/**
 * The contract between the check pipeline (which runs a tier's checks on what the hosted flow captured)
 * and the engines that look at the captures. The pipeline knows only these interfaces; each engine
 * (deterministic test-mode providers, the offline engines, managed adapters such as AWS) implements one.
 *
 * Every answer names the model that produced it, so each score in a result can be traced (it becomes a
 * `signals[]` entry `{source: "<provider>/<model>@<version>", score}`).
 */

/** Which engine produced a score. */
export type ModelRef = { provider: string; model: string; version: string };

/**
 * What one engine concluded. `unknown` is an engine that cannot tell (for example an anti-spoof model too
 * weak to gate anything) and `error` an engine that failed or timed out: the decision policy never treats
 * either as a pass.
 */
export type CheckVerdict = 'pass' | 'fail' | 'review' | 'unknown' | 'error';

/** One check's outcome as the pipeline saw it: the engine's verdict, or `skipped` when it did not run. */
export type CheckOutcome = { name: string; verdict: CheckVerdict | 'skipped'; score?: number; reason?: string; source?: string; details?: Record<string, unknown> };

export type ProviderResult = {
  verdict: CheckVerdict;
  /** 0..1 where the engine has a score (similarity, confidence); absent otherwise. */
  score?: number;
  /** A sentence a reviewer can read: what passed, or what failed and why. */
  reason: string;
  model: ModelRef;
  /** Raw figures worth keeping for review (per-step scores, quality measures). No image bytes. */
  details?: Record<string, unknown>;
};

/** Bytes of one captured image as stored in the vault. */
export type ImageInput = { bytes: Buffer; contentType: string };

export type MrzFormat = 'TD1' | 'TD2' | 'TD3';

/** Fields read from a machine-readable zone. Dates are ISO `YYYY-MM-DD`. */
export type MrzFields = {
  format: MrzFormat;
  documentType: string;
  issuingState: string;
  documentNumber: string;
  surname: string;
  givenNames: string;
  nationality: string;
  dateOfBirth: string;
  sex: 'M' | 'F' | 'X';
  expiryDate: string;
};

export type DocumentReading = ProviderResult & {
  /** Present when an MRZ was found and parsed (even when a check digit failed: the reason says which). */
  mrz?: { text: string; fields: MrzFields };
};

/** `document_ocr`: finds, reads and validates the MRZ on the document image(s). */
export interface DocumentReader {
  /** `images`: passport data page, or ID card front then back. `now` decides expiry. */
  read(input: { images: ImageInput[]; now: Date }): Promise<DocumentReading>;
}

export type FaceMatch = ProviderResult & {
  /** The selfie's 2D face embedding, stored as the `face_match_template` artifact. */
  template?: number[];
};

/** `face_match`: the face on the document against the selfie. */
export interface FaceMatcher {
  match(input: { document: ImageInput; selfie: ImageInput }): Promise<FaceMatch>;
}

export type ChallengeAction = 'turn_left' | 'turn_right' | 'look_up' | 'smile';

/** One step of a randomised liveness challenge, issued by the server. Times are epoch milliseconds. */
export type ChallengeStep = { action: ChallengeAction; nonce: string; opensAt: number; closesAt: number };

export type LivenessChallenge = { id: string; issuedAt: number; steps: ChallengeStep[] };

/**
 * One frame the page captured for a step: `capturedAt` is when the server received it (a frame uploaded in
 * the grace period after its step closed counts at the close), checked against the step's window;
 * `clientCapturedAt` the page's own stamp, which orders frames the server gave the same time.
 */
export type LivenessFrame = { stepIndex: number; nonce: string; capturedAt: number; clientCapturedAt?: number; image: ImageInput };

export type LivenessVerification = ProviderResult & {
  /** 2D embedding kept as the `liveness_template` artifact. */
  template?: number[];
};

/** `liveness`: each step's frames against the step, in order, in its window, and the same person throughout. */
export interface LivenessVerifier {
  verify(input: {
    challenge: LivenessChallenge;
    frames: LivenessFrame[];
    /** Faces the frames must match: the selfie and the document photo. */
    referenceFaces: ImageInput[];
    /**
     * Added for managed engines: the session id of a managed liveness service (AWS Rekognition Face
     * Liveness) whose own client component ran on the page. Offline engines ignore it.
     */
    managedSessionId?: string;
  }): Promise<LivenessVerification>;
}

/** `anti_spoof`: is the face a live person rather than a print, a screen or a mask. */
export interface PresentationAttackDetector {
  /** `managedSessionId`: added for managed engines, as in `LivenessVerifier.verify`. */
  detect(input: { selfie: ImageInput; frames: ImageInput[]; managedSessionId?: string }): Promise<ProviderResult>;
}

/** The engines one session's checks run on, chosen per mode by configuration. */
export type CheckProviders = {
  documentReader: DocumentReader;
  faceMatcher: FaceMatcher;
  livenessVerifier: LivenessVerifier;
  presentationAttackDetector: PresentationAttackDetector;
  /**
   * The same engines for one session's run of its checks, sharing work between its checks (the embedded
   * engines analyse each image once per run: the selfie serves face_match, the liveness references and
   * anti_spoof). Absent where there is nothing to share; dropped with the run.
   */
  forOneRun?(): CheckProviders;
};

/** `<provider>/<model>@<version>`: how a model is named in a result's `signals[].source`. */
export const signalSource = (m: ModelRef): string => `${m.provider}/${m.model}@${m.version}`;
