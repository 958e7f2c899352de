/** The artifact classes the vault keeps (the spec's list); nothing else is ever collected. */
export const ARTIFACT_CLASSES = [
  'liveness_template',
  'face_match_template',
  'selfie_image',
  'selfie_video',
  'id_document_image',
  'mrz_text',
  'decision_signals',
] as const;
export type ArtifactClass = (typeof ARTIFACT_CLASSES)[number];

export const isArtifactClass = (v: unknown): v is ArtifactClass => typeof v === 'string' && (ARTIFACT_CLASSES as readonly string[]).includes(v);

const DAY_MS = 24 * 60 * 60 * 1000;
const YEAR_MS = 365 * DAY_MS;

/**
 * Retention defaults from the spec's "Retention defaults" table. Per-tenant settings replace
 * these when the retention feature lands; until then every artifact gets its class default.
 */
export const DEFAULT_RETENTION_MS: Record<ArtifactClass, number> = {
  liveness_template: 30 * DAY_MS,
  face_match_template: 30 * DAY_MS,
  selfie_image: 30 * DAY_MS,
  selfie_video: 7 * DAY_MS,
  id_document_image: 7 * YEAR_MS,
  mrz_text: 7 * YEAR_MS,
  decision_signals: 7 * YEAR_MS,
};

export const retainUntil = (cls: ArtifactClass, storedAt: Date): Date => new Date(storedAt.getTime() + DEFAULT_RETENTION_MS[cls]);

/** Classes a tenant may open through an evidence URL: captured images and the liveness frames, never templates. */
export const EVIDENCE_CLASSES: readonly ArtifactClass[] = ['id_document_image', 'selfie_image', 'selfie_video'];

/** Classes whose purge fires `biometric.purged` (docs/api-behaviour.md, "Webhooks and events"). */
export const BIOMETRIC_CLASSES: readonly ArtifactClass[] = ['liveness_template', 'face_match_template', 'selfie_image', 'selfie_video'];

export const isBiometricClass = (c: ArtifactClass): boolean => BIOMETRIC_CLASSES.includes(c);
