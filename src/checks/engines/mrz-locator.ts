import type { Canvas } from '@napi-rs/canvas';
import { boxBlur, cropCanvas, darkMask, greyOf, rotateCanvas, toCanvas } from './image-tools';

/** Analysis width: enough for the MRZ's ~2.5 mm characters to be ~25 px on a document filling the frame. */
const WORK_WIDTH = 1200;
const MAX_SKEW = 8;
const SKEW_STEP = 0.25;

export type LocatedMrz = {
  /** The MRZ band, deskewed, upscaled for OCR. */
  strip: Canvas;
  skewDegrees: number;
  lineCount: number;
};

/**
 * Estimates the text skew: the angle at which the dark pixels' horizontal projection is sharpest
 * (the sum of squared row counts peaks when text lines are horizontal).
 */
export function estimateSkew(mask: Uint8Array, width: number, height: number): number {
  const xs: number[] = [];
  const ys: number[] = [];
  const stride = Math.max(1, Math.floor(Math.sqrt((width * height) / 400_000)));
  for (let y = 0; y < height; y += stride)
    for (let x = 0; x < width; x += stride)
      if (mask[y * width + x]) {
        xs.push(x - width / 2);
        ys.push(y - height / 2);
      }
  if (xs.length < 50) return 0;
  const size = Math.ceil(Math.hypot(width, height)) + 2;
  const bins = new Float64Array(size);
  let best = 0;
  let bestScore = -1;
  for (let a = -MAX_SKEW; a <= MAX_SKEW + 1e-9; a += SKEW_STEP) {
    const rad = (a * Math.PI) / 180;
    const s = Math.sin(rad);
    const c = Math.cos(rad);
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) bins[Math.round(ys[i] * c - xs[i] * s + size / 2)]++;
    let score = 0;
    for (let i = 0; i < size; i++) score += bins[i] * bins[i];
    if (score > bestScore) [bestScore, best] = [score, a];
  }
  return best;
}

type TextLine = { top: number; bottom: number; left: number; right: number };

/**
 * Text lines as bands of rows with many dark-run starts: characters give one per stroke, while the
 * document's edges (long dark runs) give one or two, so edges and shadows never merge lines.
 */
function textLines(mask: Uint8Array, w: number, h: number): TextLine[] {
  const starts = new Float64Array(h);
  for (let y = 0; y < h; y++) {
    let n = 0;
    for (let x = 1; x < w; x++) if (mask[y * w + x] && !mask[y * w + x - 1]) n++;
    starts[y] = n;
  }
  const on = (y: number) => starts[y] >= 12;
  const lines: TextLine[] = [];
  for (let y = 0; y < h; y++) {
    if (!on(y)) continue;
    let end = y;
    while (end + 1 < h && on(end + 1)) end++;
    if (end - y >= 6) {
      const cols = new Float64Array(w);
      for (let yy = y; yy <= end; yy++) for (let x = 1; x < w; x++) if (mask[yy * w + x] && !mask[yy * w + x - 1]) cols[x]++;
      // The extent of the line: where run starts are dense enough (skips a stray edge pixel far away).
      const minCol = 1;
      let left = 0;
      while (left < w && cols[left] < minCol) left++;
      let right = w - 1;
      while (right > left && cols[right] < minCol) right--;
      lines.push({ top: y, bottom: end, left, right });
    }
    y = end;
  }
  return lines;
}

/**
 * Finds the machine-readable zone: deskews the photo, then takes the lowest group of 2 or 3 evenly spaced
 * text lines that are about as wide as the widest text line (the MRZ spans the document; other text does not).
 * Returns undefined when no such group exists.
 */
export function locateMrz(image: Canvas | import('@napi-rs/canvas').Image): LocatedMrz | undefined {
  const work = toCanvas(image, WORK_WIDTH);
  const mask = darkMask(boxBlur(greyOf(work), 1));
  const skew = estimateSkew(mask, work.width, work.height);
  const straight = skew === 0 ? work : rotateCanvas(work, -skew);
  const m2 = darkMask(boxBlur(greyOf(straight), 1));
  const lines = textLines(m2, straight.width, straight.height);
  if (lines.length < 2) return undefined;
  const widest = Math.max(...lines.map((l) => l.right - l.left));
  const wide = (l: TextLine) => l.right - l.left >= widest * 0.75;
  const group: TextLine[] = [];
  for (let i = lines.length - 1; i >= 0 && group.length < 3; i--) {
    const l = lines[i];
    if (!wide(l)) {
      if (group.length === 0) continue;
      break;
    }
    const height = l.bottom - l.top;
    const prev = group[group.length - 1];
    if (prev) {
      const gap = prev.top - l.bottom;
      if (gap > 2.5 * height || height > 2 * (prev.bottom - prev.top) || 2 * height < prev.bottom - prev.top) break;
    }
    group.push(l);
  }
  if (group.length < 2) return undefined;
  const top = Math.min(...group.map((l) => l.top));
  const bottom = Math.max(...group.map((l) => l.bottom));
  const left = Math.min(...group.map((l) => l.left));
  const right = Math.max(...group.map((l) => l.right));
  const lineHeight = (bottom - top) / group.length;
  const padY = lineHeight * 0.6;
  const padX = lineHeight * 0.8;
  const x = Math.max(0, left - padX);
  const y = Math.max(0, top - padY);
  const w = Math.min(straight.width - x, right - left + 2 * padX);
  const h = Math.min(straight.height - y, bottom - top + 2 * padY);
  // Tesseract reads best with characters ~30-40 px high.
  const scale = Math.max(1, Math.min(2, 36 / (lineHeight * 0.6)));
  return { strip: cropCanvas(straight, x, y, w, h, scale), skewDegrees: skew, lineCount: group.length };
}
