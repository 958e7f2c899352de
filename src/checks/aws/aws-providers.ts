import { RekognitionClient } from '@aws-sdk/client-rekognition';
import { TextractClient } from '@aws-sdk/client-textract';
import { biometricPolicy } from '../policy/biometric-policy';
import { clientOptions, type AwsSettings } from './aws-call';
import { RekognitionFaceMatcher } from './rekognition-face.matcher';
import { RekognitionFaceLiveness } from './rekognition-liveness';
import { TextractDocumentReader } from './textract-document.reader';

/** The managed adapters on one pair of SDK clients (region, endpoint and credentials from configuration and the SDK's chain). */
export function createAwsProviders(settings: AwsSettings) {
  const rekognition = new RekognitionClient(clientOptions(settings));
  const textract = new TextractClient(clientOptions(settings));
  const liveness = new RekognitionFaceLiveness(rekognition, biometricPolicy, settings.timeoutMs);
  return {
    documentReader: new TextractDocumentReader(textract, settings.timeoutMs),
    faceMatcher: new RekognitionFaceMatcher(rekognition, biometricPolicy, settings.timeoutMs),
    livenessVerifier: liveness,
    presentationAttackDetector: liveness,
    close: () => {
      rekognition.destroy();
      textract.destroy();
    },
  };
}
