import type { Canvas } from '@napi-rs/canvas';
import { boxBlur, canvasOfGrey, cropCanvas, darkMask, greyOf, otsuThreshold, rankFilter, rotateCanvas, stretched } from './image-tools';
import type { LocatedMrz } from './mrz-locator';

/** One image of the MRZ for the OCR: the whole zone as a block, or its lines one by one. */
export type StripVariant = { name: string; mode: 'block' | 'line'; images: Canvas[] };

/** A black-and-white copy thresholded locally (Sauvola-like): a second, independent binarisation from tesseract's own (Otsu). */
export function binarised(src: Canvas, window: number, k = 0.15): Canvas {
  const mask = darkMask(boxBlur(greyOf(src), 1), window | 1, k);
  return canvasOfGrey({ width: src.width, height: src.height, data: Array.from(mask, (m) => (m ? 0 : 255)) });
}

/** The grey zone with its edges steepened (unsharp mask over a (2r+1)^2 box): blur softens the gap between O and 0. */
export function sharpened(src: Canvas, r: number, amount: number): Canvas {
  const g = greyOf(src);
  const blurred = boxBlur(g, r);
  return canvasOfGrey({ width: g.width, height: g.height, data: Array.from(g.data, (v, i) => v + amount * (v - blurred.data[i])) });
}

/**
 * The readings tried, in order, each an independent look at the same zone: the grey zone as one block
 * (tesseract binarises it itself), a locally thresholded copy, each line alone, and the grey zone at three
 * quarters of the size. The reader stops as soon as the readings so far agree (mrz-readings.ts), so a clean
 * document costs two OCR passes. When they do not settle the zone, other preprocessings follow:
 * a smaller scale, a smoothed copy (JPEG blocks and noise), the zone turned by ±0.5° (the deskew works in
 * 0.25° steps, and perspective leaves the lines slightly tilted), a sharpened copy, a copy with its strokes
 * thickened (a thin print) and one at Otsu's threshold; a reading whose check digits hold can then replace
 * the misread line. A zone whose check digits fail in every reading (a tampered
 * document) costs every reading.
 */
export function* stripVariants(located: LocatedMrz): Generator<StripVariant> {
  const { strip, lineRows } = located;
  const lineHeight = lineRows.length ? lineRows.reduce((s, r) => s + r.height, 0) / lineRows.length : strip.height / 3;
  yield { name: 'grey', mode: 'block', images: [strip] };
  yield { name: 'sauvola', mode: 'block', images: [binarised(strip, Math.round(lineHeight * 1.5))] };
  if (lineRows.length >= 2) yield { name: 'lines', mode: 'line', images: lineRows.map((r) => cropCanvas(strip, 0, r.top, strip.width, r.height)) };
  yield { name: 'grey-small', mode: 'block', images: [cropCanvas(strip, 0, 0, strip.width, strip.height, 0.75)] };
  yield { name: 'grey-smaller', mode: 'block', images: [cropCanvas(strip, 0, 0, strip.width, strip.height, 0.6)] };
  yield { name: 'smoothed', mode: 'block', images: [canvasOfGrey(boxBlur(greyOf(strip), 1))] };
  yield { name: 'tilted+0.5', mode: 'block', images: [rotateCanvas(strip, 0.5)] };
  yield { name: 'tilted-0.5', mode: 'block', images: [rotateCanvas(strip, -0.5)] };
  yield { name: 'sharpened', mode: 'block', images: [sharpened(strip, 2, 1)] };
  // Print weight varies between issuers and printers: a thin print read with its strokes thickened, and
  // the zone at Otsu's global threshold (a third binarisation).
  yield { name: 'thickened', mode: 'block', images: [canvasOfGrey(rankFilter(greyOf(strip), 1, true))] };
  yield { name: 'otsu', mode: 'block', images: [otsuBinarised(strip)] };
}

/** A black-and-white copy at Otsu's global threshold: the third binarisation, after tesseract's own and the local one. */
export function otsuBinarised(src: Canvas): Canvas {
  const g = greyOf(src);
  const t = otsuThreshold(g);
  return canvasOfGrey({ width: g.width, height: g.height, data: Array.from(g.data, (v) => (v <= t ? 0 : 255)) });
}

/**
 * More looks at one line alone, read as one text line: the name line when the check digits hold but the
 * readings so far do not settle the names (mrz-votes.ts; no check digit covers a name, so only more
 * independent readings can), and a check-digit line when no combination of the zone's readings holds its
 * check digits (its characters are then voted over every reading, mrz-readings.ts). Other crops (larger,
 * with more margin) and other binarisations and stroke weights (Otsu, a stricter local threshold, contrast
 * stretched, strokes thickened for a thin print and thinned for a heavy one). Each costs one single-line OCR
 * pass, about a third of a zone's.
 */
export function* lineAloneVariants(located: LocatedMrz, lineIndex: number, label = 'name'): Generator<StripVariant> {
  const { strip, lineRows } = located;
  const row = lineRows[lineIndex];
  if (!row || lineRows.length < 2) return;
  const line = cropCanvas(strip, 0, row.top, strip.width, row.height);
  const grey = greyOf(line);
  const margin = Math.round(row.height * 0.25);
  const top = Math.max(0, row.top - margin);
  yield { name: `${label}-larger`, mode: 'line', images: [cropCanvas(strip, 0, row.top, strip.width, row.height, 1.4)] };
  yield { name: `${label}-otsu`, mode: 'line', images: [otsuBinarised(line)] };
  yield { name: `${label}-thickened`, mode: 'line', images: [canvasOfGrey(rankFilter(grey, 1, true))] };
  yield { name: `${label}-margin`, mode: 'line', images: [cropCanvas(strip, 0, top, strip.width, Math.min(strip.height - top, row.height + 2 * margin))] };
  yield { name: `${label}-stretched`, mode: 'line', images: [canvasOfGrey(stretched(boxBlur(grey, 1)))] };
  yield { name: `${label}-thinned`, mode: 'line', images: [canvasOfGrey(rankFilter(grey, 1, false))] };
  yield { name: `${label}-sauvola-strict`, mode: 'line', images: [binarised(line, Math.round(row.height * 1.2), 0.3)] };
}
