import { DomainError } from '../errors';
import type { RetentionField, RetentionPolicy } from '../vault/artifact-retention';

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
