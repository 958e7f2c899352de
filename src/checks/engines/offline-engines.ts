import type { DocumentReader, FaceMatcher, LivenessVerifier, PresentationAttackDetector } from '../check-providers';
import { biometricPolicy } from '../policy/biometric-policy';
import { EmbeddedAttackDetector } from './embedded-attack.detector';
import { EmbeddedFaceMatcher } from './embedded-face.matcher';
import { EmbeddedLivenessVerifier } from './embedded-liveness.verifier';
import { HumanFaceAnalyzer } from './human-face.analyzer';
import { EMBEDDED_ANTI_SPOOF_MODEL, HUMAN_FACE_MODEL } from './embedded-models';
import { MrzDocumentReader } from './mrz-document.reader';
import { MrzOcr } from './mrz-ocr';

export type OfflineEngines = {
  documentReader: DocumentReader;
  faceMatcher: FaceMatcher;
  livenessVerifier: LivenessVerifier;
  presentationAttackDetector: PresentationAttackDetector;
  close(): Promise<void>;
};

/** Loads the models once (OCR worker, Human) and builds every offline engine on them. Runs inside a check worker. */
export async function startOfflineEngines(): Promise<OfflineEngines> {
  const [ocr, faces] = await Promise.all([MrzOcr.start(), HumanFaceAnalyzer.start()]);
  return {
    documentReader: new MrzDocumentReader(ocr),
    faceMatcher: new EmbeddedFaceMatcher(faces, biometricPolicy, HUMAN_FACE_MODEL),
    livenessVerifier: new EmbeddedLivenessVerifier(faces, biometricPolicy, HUMAN_FACE_MODEL),
    presentationAttackDetector: new EmbeddedAttackDetector(faces, EMBEDDED_ANTI_SPOOF_MODEL),
    close: () => ocr.close(),
  };
}
