/** The tiers a session may order or achieve (docs/api-behaviour.md, "Tiers, checks and badges"): what `sessions.tier` and `achieved_tier` hold. */
export const TIERS = ['T0', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6'] as const;
export type Tier = (typeof TIERS)[number];

export type Decision = 'approved' | 'declined' | 'review';
export type CheckStatus = 'pass' | 'fail' | 'skipped' | 'error';

/** The engine's own verdict, beside the public `status` (which shows `review` as `fail` and `unknown` as `error`). */
export type CheckVerdictName = 'pass' | 'fail' | 'review' | 'unknown' | 'error' | 'skipped';

export type Check = {
  name: string;
  status: CheckStatus;
  score?: number;
  reason?: string;
  /** Additive: the engine's verdict (absent in results decided before it existed). */
  verdict?: CheckVerdictName;
  /** Additive: what the check read, e.g. a registry check's normalized record (docs/checks.md). */
  details?: Record<string, unknown>;
};
export type Signal = { source: string; score: number };

export type SanctionsReason = { feature: string; score: number; detail: string };
export type SanctionsHit = {
  list: string;
  entry_id: string;
  /** The list's own reference (UN `CDi.008`, EU `EU.3579.2`, UK `RUS0001`, OFAC entry number, DFAT reference): docs/sanctions.md. */
  reference: string;
  programme: string;
  subject_type: string;
  matched_name: string;
  score: number;
  reasons: SanctionsReason[];
  list_version: string;
};

/** The result document stored with a session (jsonb) and returned in the definition shape. */
export type SessionResult = {
  decision: Decision;
  achieved_tier: Tier;
  confidence: number;
  checks: Check[];
  evidence_urls: string[];
  /** Internal: the vault artifacts `evidence_urls` are signed for on a tenant-key read (never emitted). */
  evidence_artifact_ids?: string[];
  badges: string[];
  signals: Signal[];
  sanctions_hits?: SanctionsHit[];
  chip?: Record<string, unknown>;
  review?: { decision: 'approve' | 'reject'; reason: string; reviewer_id: string | null; reviewed_at: string };
};
