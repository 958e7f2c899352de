import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { boxBlur, cropCanvas, darkMask, greyOf } from './image-tools';
import type { LocatedMrz } from './mrz-locator';

/** One image of the MRZ for the OCR: the whole zone as a block, or its lines one by one. */
export type StripVariant = { name: string; mode: 'block' | 'line'; images: Canvas[] };

/** A black-and-white copy thresholded locally (Sauvola-like): a second, independent binarisation from tesseract's own (Otsu). */
export function binarised(src: Canvas, window: number): Canvas {
  const mask = darkMask(boxBlur(greyOf(src), 1), window | 1, 0.15);
  const out = createCanvas(src.width, src.height);
  const ctx = out.getContext('2d');
  const img = ctx.createImageData(src.width, src.height);
  for (let i = 0; i < mask.length; i++) {
    const v = mask[i] ? 0 : 255;
    img.data[4 * i] = v;
    img.data[4 * i + 1] = v;
    img.data[4 * i + 2] = v;
    img.data[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return out;
}

/**
 * The readings tried, in order, each an independent look at the same zone: the grey zone as one block
 * (tesseract binarises it itself), a locally thresholded copy, each line alone, and the grey zone at three
 * quarters of the size. The reader stops as soon as the readings so far agree (mrz-readings.ts), so a clean
 * document costs two OCR passes and a hard one up to four.
 */
export function* stripVariants(located: LocatedMrz): Generator<StripVariant> {
  const { strip, lineRows } = located;
  const lineHeight = lineRows.length ? lineRows.reduce((s, r) => s + r.height, 0) / lineRows.length : strip.height / 3;
  yield { name: 'grey', mode: 'block', images: [strip] };
  yield { name: 'sauvola', mode: 'block', images: [binarised(strip, Math.round(lineHeight * 1.5))] };
  if (lineRows.length >= 2) yield { name: 'lines', mode: 'line', images: lineRows.map((r) => cropCanvas(strip, 0, r.top, strip.width, r.height)) };
  yield { name: 'grey-small', mode: 'block', images: [cropCanvas(strip, 0, 0, strip.width, strip.height, 0.75)] };
}
