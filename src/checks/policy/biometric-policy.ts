import policyJson from './biometric-policy.v1.json';

/** The thresholds of the offline face engines, one versioned file (docs/checks.md "Policy"). */
export type BiometricPolicy = {
  version: string;
  faceMatch: {
    /** Similarity (cosine of faceres embeddings) at or above which the match passes. */
    passAtOrAbove: number;
    /** At or above this and below `passAtOrAbove`: review; below: fail. */
    reviewAtOrAbove: number;
    minFaceSidePx: number;
    /** Document photos are small: their own minimum. */
    minFaceSidePxDocument: number;
    minSharpness: number;
    minDetectorScore: number;
  };
  liveness: {
    minFramesPerStep: number;
    turnYawDegrees: number;
    lookUpPitchDegrees: number;
    smileHappy: number;
    /** A smile step must start below this (a crossing, not a face that smiles throughout). */
    neutralHappy: number;
    identityAtOrAbove: number;
    /** Pose ranges under which the whole capture counts as a static image. */
    staticMaxRangeDegrees: number;
    staticMaxHappyRange: number;
    /** Allowed difference between the page's clock and the step window. */
    clockSkewMs: number;
  };
  /** Managed services: their 0-100 scores divided by 100. */
  aws: { compareFacesPassAtOrAbove: number; compareFacesReviewAtOrAbove: number; faceLivenessPassAtOrAbove: number };
};

export const biometricPolicy: BiometricPolicy = policyJson;
