/**
 * A rendered identity document (synthetic-document.ts) with a face photo printed in its photo box, so one
 * image carries both an MRZ for `document_ocr` and a portrait for `face_match` and the liveness references.
 * The portrait is read at run time from a devDependency (face-images.ts) and never committed.
 */
import type { ImageInput, MrzFields } from '../../src/checks/check-providers';
import { buildMrz } from './mrz-lines';
import { renderDocument, type Degradation } from './synthetic-document';

export function renderDocumentWithPortrait(fields: MrzFields, portrait: ImageInput, degradation: Degradation = {}, rand: () => number = Math.random): Promise<ImageInput & { mrz: string[] }> {
  return renderDocument(fields, degradation, rand, buildMrz(fields), portrait.bytes);
}

/**
 * The passport the T2 product test renders with franck's portrait (test/e2e/live-t2.test.ts), also used as
 * the document reference when its liveness windows are computed (bench/checks/franck-windows.ts).
 */
export const FRANCK_PASSPORT: MrzFields = {
  format: 'TD3',
  documentType: 'P',
  issuingState: 'NLD',
  documentNumber: 'XN4021K87',
  surname: 'VAN DER BERG',
  givenNames: 'FRANCK',
  nationality: 'NLD',
  dateOfBirth: '1988-03-14',
  sex: 'M',
  expiryDate: '2036-06-30',
};
