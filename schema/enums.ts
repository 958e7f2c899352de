import { registerEnumType } from 'type-graphql';

/** GraphQL enum names are upper case by convention; their internal values are the REST/domain strings. */
export const TierEnum = { T0: 'T0', T1: 'T1', T2: 'T2', T3: 'T3', T4: 'T4', T5: 'T5', T6: 'T6' } as const;
export const SessionStatusEnum = {
  CREATED: 'created',
  IN_PROGRESS: 'in_progress',
  PROCESSING: 'processing',
  SUCCESS: 'success',
  FAILED: 'failed',
  MANUAL_REVIEW: 'manual_review',
  EXPIRED: 'expired',
  WITHDRAWN: 'withdrawn',
} as const;
export const DecisionEnum = { APPROVED: 'approved', DECLINED: 'declined', REVIEW: 'review' } as const;
export const CheckStatusEnum = { PASS: 'pass', FAIL: 'fail', SKIPPED: 'skipped', ERROR: 'error' } as const;
export const CheckVerdictEnum = { PASS: 'pass', FAIL: 'fail', REVIEW: 'review', UNKNOWN: 'unknown', ERROR: 'error', SKIPPED: 'skipped' } as const;
export const ReviewDecisionEnum = { APPROVE: 'approve', REJECT: 'reject' } as const;

registerEnumType(TierEnum, { name: 'Tier', description: 'Verification tier, T0 (anonymous) to T6 (government record, not yet available).' });
registerEnumType(SessionStatusEnum, { name: 'SessionStatus', description: 'Where a session is in its lifecycle.' });
registerEnumType(DecisionEnum, { name: 'Decision', description: 'The outcome of a verification.' });
registerEnumType(CheckStatusEnum, { name: 'CheckStatus' });
registerEnumType(CheckVerdictEnum, { name: 'CheckVerdict', description: "The engine's own verdict: `status` shows REVIEW as FAIL and UNKNOWN as ERROR." });
registerEnumType(ReviewDecisionEnum, { name: 'ReviewDecision', description: 'A reviewer approves or rejects a session in manual review.' });

export type TierValue = (typeof TierEnum)[keyof typeof TierEnum];
export type SessionStatusValue = (typeof SessionStatusEnum)[keyof typeof SessionStatusEnum];
export type ReviewDecisionValue = (typeof ReviewDecisionEnum)[keyof typeof ReviewDecisionEnum];

export const SessionDecisionKindEnum = { APPROVE: 'approve', DECLINE: 'decline', REVERSE: 'reverse', REVIEW: 'review' } as const;
export const HumanDecisionEnum = { APPROVE: 'approve', DECLINE: 'decline', REVERSE: 'reverse' } as const;
export const DecisionSourceEnum = { AUTOMATED: 'automated', HUMAN: 'human' } as const;
registerEnumType(SessionDecisionKindEnum, { name: 'SessionDecisionKind', description: 'What a decision did: a person approves, declines or reverses; the pipeline approves, declines or sends to review.' });
registerEnumType(HumanDecisionEnum, { name: 'HumanDecision', description: 'A reviewer approves or declines a session in manual review, or reverses a decided one within 90 days.' });
registerEnumType(DecisionSourceEnum, { name: 'DecisionSource', description: 'Who decided: the check pipeline or a person.' });
export type HumanDecisionValue = (typeof HumanDecisionEnum)[keyof typeof HumanDecisionEnum];
