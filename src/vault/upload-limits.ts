import type { ArtifactClass } from './artifact-classes';
import type { MediaKind } from './content-type';

export const MIB = 1024 * 1024;

/** Largest accepted body per media kind. */
export const MAX_BYTES: Record<MediaKind, number> = { image: 10 * MIB, video: 25 * MIB };

/**
 * What the page may upload, per class: the media kinds accepted and how many one session holds.
 * Liveness frames are stills (`selfie_video` class: the frames are the liveness recording, no audio).
 * Templates, MRZ text and decision signals are written by the checks, never uploaded.
 */
export const UPLOADABLE: Partial<Record<ArtifactClass, { kinds: readonly MediaKind[]; maxPerSession: number }>> = {
  id_document_image: { kinds: ['image'], maxPerSession: 2 },
  selfie_image: { kinds: ['image'], maxPerSession: 1 },
  selfie_video: { kinds: ['image', 'video'], maxPerSession: 60 },
};
