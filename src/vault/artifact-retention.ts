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

/** `retain_until` of an artifact stored at `storedAt` under `policy`, and whether it goes at completion. */
export function retentionFor(policy: RetentionPolicy, cls: ArtifactClass, storedAt: Date): { retainUntil: Date; purgeAtCompletion: boolean } {
  const field = FIELD_OF_CLASS[cls];
  const value = policy[field];
  if (field === 'id_document_years') return { retainUntil: addYears(storedAt, value), purgeAtCompletion: false };
  if (value === 0) return { retainUntil: addDays(storedAt, ZERO_DAY_SAFETY_DAYS), purgeAtCompletion: true };
  return { retainUntil: addDays(storedAt, value), purgeAtCompletion: false };
}

export const addDays = (d: Date, days: number): Date => new Date(d.getTime() + days * 86_400_000);

/** Calendar years in UTC, as PostgreSQL's `+ interval 'n years'` counts them (29 February becomes 28 February). */
export function addYears(d: Date, years: number): Date {
  const r = new Date(d.getTime());
  r.setUTCFullYear(d.getUTCFullYear() + years);
  if (r.getUTCDate() !== d.getUTCDate()) r.setUTCDate(0);
  return r;
}
