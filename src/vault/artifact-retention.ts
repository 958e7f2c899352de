import type { ArtifactClass } from './artifact-classes';

/** A tenant's retention in one mode (docs/retention-and-audit.md). */
export type RetentionPolicy = {
  biometric_template_days: number;
  selfie_image_days: number;
  selfie_video_days: number;
  id_document_years: number;
};
export type RetentionField = keyof RetentionPolicy;

/** The spec's "Retention defaults". */
export const DEFAULT_POLICY: Readonly<RetentionPolicy> = { biometric_template_days: 30, selfie_image_days: 30, selfie_video_days: 7, id_document_years: 7 };

/**
 * A 0-day artifact is purged when its session completes; until then it needs a `retain_until`
 * too. 30 days is well past the longest a session stays open, so the hourly purge is the net
 * under a session that never completes.
 */
export const ZERO_DAY_SAFETY_DAYS = 30;

/** Which policy field governs each class; MRZ text, the decision, the registry records and a digital ID's presentation follow the ID document. */
export const FIELD_OF_CLASS: Readonly<Record<ArtifactClass, RetentionField>> = {
  liveness_template: 'biometric_template_days',
  face_match_template: 'biometric_template_days',
  selfie_image: 'selfie_image_days',
  selfie_video: 'selfie_video_days',
  id_document_image: 'id_document_years',
  mrz_text: 'id_document_years',
  decision_signals: 'id_document_years',
  registry_record: 'id_document_years',
  digital_id_presentation: 'id_document_years',
};

/**
 * How an artifact's `retain_until` follows from the policy in force when it is stored, computed by the store's
 * insert from the policy it reads in the same statement as the row (artifact_insert_refusal, migration
 * 1765100000032; one read fewer per upload): the ID document's years added in UTC (29 February becomes
 * 28 February), a day count as 24-hour steps, and a 0-day class kept `zeroDaySafetyDays` and purged at
 * completion.
 */
export type RetentionRule = { field: RetentionField; byDefault: number; inYears: boolean; zeroDaySafetyDays: number };

export function retentionRuleFor(cls: ArtifactClass): RetentionRule {
  const field = FIELD_OF_CLASS[cls];
  return { field, byDefault: DEFAULT_POLICY[field], inYears: field === 'id_document_years', zeroDaySafetyDays: ZERO_DAY_SAFETY_DAYS };
}
