import type { ModelRef } from '../check-providers';

/**
 * The names of the offline models, apart from the code that loads them: an API instance that runs no
 * checks names them in its health answer without loading tesseract.js or tfjs (docs/operations.md, "Workers").
 */
export const MRZ_OCR_MODEL = { provider: 'embedded', model: 'tesseract.js-mrz', version: '7.0.0+tesseractMRZ' } as const;

/** The face model every offline face score comes from. */
export const HUMAN_FACE_MODEL: ModelRef = { provider: 'embedded', model: 'human-faceres', version: '3.3.6' };

export const EMBEDDED_ANTI_SPOOF_MODEL: ModelRef = { provider: 'embedded', model: 'human-antispoof', version: '3.3.6' };
