import type { DocumentReader, FaceMatcher, LivenessVerifier, PresentationAttackDetector } from '../check-providers';
import { biometricPolicy } from '../policy/biometric-policy';
import { EmbeddedAttackDetector } from './embedded-attack.detector';
import { EmbeddedFaceMatcher } from './embedded-face.matcher';
import { EmbeddedLivenessVerifier } from './embedded-liveness.verifier';
import type { FaceAnalyzer } from './face-analysis';
import { HumanFaceAnalyzer } from './human-face.analyzer';
import { EMBEDDED_ANTI_SPOOF_MODEL, HUMAN_FACE_MODEL } from './embedded-models';
import { MrzDocumentReader, type MrzTextRecogniser } from './mrz-document.reader';
import { MrzOcr } from './mrz-ocr';

export type OfflineEngines = {
  documentReader: DocumentReader;
  faceMatcher: FaceMatcher;
  livenessVerifier: LivenessVerifier;
  presentationAttackDetector: PresentationAttackDetector;
};

/** Every offline engine on one OCR and one face analyser (cheap: the models are in `ocr` and `faces`). */
export function offlineEngines(ocr: MrzTextRecogniser, faces: FaceAnalyzer): OfflineEngines {
  return {
    documentReader: new MrzDocumentReader(ocr),
    faceMatcher: new EmbeddedFaceMatcher(faces, biometricPolicy, HUMAN_FACE_MODEL),
    livenessVerifier: new EmbeddedLivenessVerifier(faces, biometricPolicy, HUMAN_FACE_MODEL),
    presentationAttackDetector: new EmbeddedAttackDetector(faces, EMBEDDED_ANTI_SPOOF_MODEL),
  };
}

/** The offline models, loaded once (OCR worker, Human). Runs inside a check worker. */
export async function startOfflineModels(): Promise<{ ocr: MrzOcr; faces: HumanFaceAnalyzer; close(): Promise<void> }> {
  const [ocr, faces] = await Promise.all([MrzOcr.start(), HumanFaceAnalyzer.start()]);
  return { ocr, faces, close: () => ocr.close() };
}
