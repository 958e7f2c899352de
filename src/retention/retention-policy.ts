import { DomainError } from '../errors';
import type { ArtifactClass } from '../vault/artifact-classes';

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

/** The spec's "Retention ranges", inclusive. */
export const RETENTION_RANGES: Readonly<Record<RetentionField, { min: number; max: number }>> = {
  biometric_template_days: { min: 0, max: 365 },
  selfie_image_days: { min: 0, max: 90 },
  selfie_video_days: { min: 0, max: 30 },
  id_document_years: { min: 1, max: 10 },
};
export const RETENTION_FIELDS = Object.keys(RETENTION_RANGES) as RetentionField[];

/** Longest a regulated tenant may keep one session's ID document. */
export const MAX_EXTENDED_ID_DOCUMENT_YEARS = 10;

/**
 * A 0-day artifact is purged when its session completes; until then it needs a `retain_until`
 * too. 30 days is well past the longest a session stays open, so the hourly purge is the net
 * under a session that never completes.
 */
export const ZERO_DAY_SAFETY_DAYS = 30;

/** Which policy field governs each class; MRZ text, the decision and the registry records follow the ID document. */
export const FIELD_OF_CLASS: Readonly<Record<ArtifactClass, RetentionField>> = {
  liveness_template: 'biometric_template_days',
  face_match_template: 'biometric_template_days',
  selfie_image: 'selfie_image_days',
  selfie_video: 'selfie_video_days',
  id_document_image: 'id_document_years',
  mrz_text: 'id_document_years',
  decision_signals: 'id_document_years',
  registry_record: 'id_document_years',
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

/**
 * A PATCH body: only the four fields, each an integer within its range; partial is fine, empty is
 * not. Every refusal is `invalid_request` naming the field.
 */
export function parseRetentionPatch(body: unknown): Partial<RetentionPolicy> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('invalid_request', 'The request body must be a JSON object');
  const out: Partial<RetentionPolicy> = {};
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    if (!(field in RETENTION_RANGES)) throw new DomainError('invalid_request', `${field}: unknown field (allowed: ${RETENTION_FIELDS.join(', ')})`);
    const { min, max } = RETENTION_RANGES[field as RetentionField];
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new DomainError('invalid_request', `${field}: must be an integer from ${min} to ${max}`);
    if (value < min || value > max) throw new DomainError('invalid_request', `${field}: must be from ${min} to ${max} (got ${value})`);
    out[field as RetentionField] = value;
  }
  if (Object.keys(out).length === 0) throw new DomainError('invalid_request', `Give at least one of ${RETENTION_FIELDS.join(', ')}`);
  return out;
}

const MAX_REASON = 500;

/** The body of POST /v1/verify/sessions/{id}/retention: `{id_document_years, reason}`, each refusal naming its field. */
export function parseExtension(body: unknown): { years: number; reason: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('invalid_request', 'The request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => k !== 'id_document_years' && k !== 'reason');
  if (unknown.length) throw new DomainError('invalid_request', `${unknown[0]}: unknown field (allowed: id_document_years, reason)`);
  const years = b.id_document_years;
  if (typeof years !== 'number' || !Number.isInteger(years) || years < 1 || years > MAX_EXTENDED_ID_DOCUMENT_YEARS) {
    throw new DomainError('invalid_request', `id_document_years: must be an integer from 1 to ${MAX_EXTENDED_ID_DOCUMENT_YEARS}`);
  }
  const reason = b.reason;
  if (typeof reason !== 'string' || reason.trim().length === 0 || reason.length > MAX_REASON) throw new DomainError('invalid_request', `reason: must be a non-empty string of at most ${MAX_REASON} characters`);
  return { years, reason };
}
