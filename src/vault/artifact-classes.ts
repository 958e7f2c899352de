/** The artifact classes the vault keeps (the spec's list); nothing else is ever collected. */
export const ARTIFACT_CLASSES = [
  'liveness_template',
  'face_match_template',
  'selfie_image',
  'selfie_video',
  'id_document_image',
  'mrz_text',
  'decision_signals',
  /** T4: one registry's answer (normalized record and raw body), kept as evidence of the business checks. */
  'registry_record',
  /** D24: a wallet's verified presentation (only the requested elements), kept like the ID document. */
  'digital_id_presentation',
] as const;
export type ArtifactClass = (typeof ARTIFACT_CLASSES)[number];

export const isArtifactClass = (v: unknown): v is ArtifactClass => typeof v === 'string' && (ARTIFACT_CLASSES as readonly string[]).includes(v);

/** Classes a tenant may open through an evidence URL: captured images and the liveness frames, never templates. */
export const EVIDENCE_CLASSES: readonly ArtifactClass[] = ['id_document_image', 'selfie_image', 'selfie_video'];

/** Classes whose purge fires `biometric.purged` (docs/api-behaviour.md, "Webhooks and events"). */
export const BIOMETRIC_CLASSES: readonly ArtifactClass[] = ['liveness_template', 'face_match_template', 'selfie_image', 'selfie_video'];

export const isBiometricClass = (c: ArtifactClass): boolean => BIOMETRIC_CLASSES.includes(c);
