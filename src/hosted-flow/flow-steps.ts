import type { Tier } from '../sessions/tiers';

/** What the end user does on the hosted page, in order (docs/hosted-flow.md "Steps by tier"). */
export type FlowStep = 'consent' | 'document' | 'selfie' | 'liveness' | 'confirm_identity' | 'business' | 'mobile_handoff';

const STEPS: Record<Tier, readonly FlowStep[]> = {
  T0: [],
  T1: ['consent', 'document', 'selfie'],
  T2: ['consent', 'document', 'selfie', 'liveness'],
  T3: ['consent', 'document', 'selfie', 'liveness', 'confirm_identity'],
  T4: ['consent', 'document', 'selfie', 'liveness', 'confirm_identity', 'business'],
  T5: ['consent', 'document', 'selfie', 'liveness', 'mobile_handoff'],
  T6: [],
};

export const stepsForTier = (tier: Tier): readonly FlowStep[] => STEPS[tier];
export const needsLiveness = (tier: Tier): boolean => STEPS[tier].includes('liveness');
