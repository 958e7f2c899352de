/**
 * A rendered identity document (synthetic-document.ts) with a face photo printed in its photo box, so one
 * image carries both an MRZ for `document_ocr` and a portrait for `face_match` and the liveness references.
 * The portrait is read at run time from a devDependency (face-images.ts) and never committed.
 */
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { ImageInput, MrzFields } from '../../src/checks/check-providers';
import { renderDocument, type Degradation } from './synthetic-document';

/**
 * Only the degradations that act on the whole photo: rotation and perspective move the document inside
 * renderDocument, before the portrait could be placed, so they are not offered here.
 */
export type PortraitDocumentDegradation = Pick<Degradation, 'blur' | 'noise' | 'jpegQuality'>;

/** The photo box of synthetic-document.ts drawDocument, as fractions of the document's width and height. */
const PHOTO_BOX = { x: 0.05, y: 0.12, w: 0.25, h: 0.5 };
/** Document sizes in millimetres at 10 px/mm, as synthetic-document.ts renders them. */
const SIZE_PX: Record<MrzFields['format'], [number, number]> = { TD1: [856, 540], TD2: [1050, 740], TD3: [1250, 880] };

export async function renderDocumentWithPortrait(
  fields: MrzFields,
  portrait: ImageInput,
  degradation: PortraitDocumentDegradation = {},
  rand: () => number = Math.random,
): Promise<ImageInput & { mrz: string[] }> {
  const clean = await renderDocument(fields);
  const page = await loadImage(clean.bytes);
  const face = await loadImage(portrait.bytes);
  const [w, h] = SIZE_PX[fields.format];
  // renderDocument centres the document on a table with this margin on every side.
  const margin = (page.width - w) / 2;
  const box = { x: margin + w * PHOTO_BOX.x, y: margin + h * PHOTO_BOX.y, w: w * PHOTO_BOX.w, h: h * PHOTO_BOX.h };
  // Cover the box with the middle of the portrait (its aspect kept), printed a little grey as on a card.
  const scale = Math.max(box.w / face.width, box.h / face.height);
  const [sw, sh] = [box.w / scale, box.h / scale];
  const canvas = createCanvas(page.width, page.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(page, 0, 0);
  ctx.filter = 'grayscale(0.6) contrast(0.95)';
  ctx.drawImage(face, (face.width - sw) / 2, (face.height - sh) / 2, sw, sh, box.x, box.y, box.w, box.h);
  ctx.filter = 'none';

  let out = canvas;
  if (degradation.blur) {
    out = createCanvas(canvas.width, canvas.height);
    const bctx = out.getContext('2d');
    bctx.filter = `blur(${degradation.blur}px)`;
    bctx.drawImage(canvas, 0, 0);
  }
  if (degradation.noise) {
    const octx = out.getContext('2d');
    const img = octx.getImageData(0, 0, out.width, out.height);
    for (let i = 0; i < img.data.length; i += 4) {
      const n = (rand() + rand() + rand() - 1.5) * 2 * degradation.noise;
      for (let c = 0; c < 3; c++) img.data[i + c] = Math.max(0, Math.min(255, img.data[i + c] + n));
    }
    octx.putImageData(img, 0, 0);
  }
  if (degradation.jpegQuality) return { bytes: await out.encode('jpeg', degradation.jpegQuality), contentType: 'image/jpeg', mrz: clean.mrz };
  return { bytes: await out.encode('png'), contentType: 'image/png', mrz: clean.mrz };
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
