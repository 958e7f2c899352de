import type { Canvas } from '@napi-rs/canvas';
import { boxBlur, canvasOfGrey, cropCanvas, darkMask, flattened, greyOf, rotateCanvas, toCanvas } from './image-tools';

/** Analysis width: enough for the MRZ's ~2.5 mm characters to be ~25 px on a document filling the frame. */
export const WORK_WIDTH = 1200;
/** A document photographed by hand is often turned by 10° or more; the tuning set's ±5° never asked for more than 8. */
const MAX_SKEW = 12;
const SKEW_STEP = 0.25;

export type LocatedMrz = {
  /** The MRZ band, deskewed, upscaled for OCR. */
  strip: Canvas;
  skewDegrees: number;
  lineCount: number;
  /** Each MRZ line's rows in the strip, top to bottom, with half a line of margin above and below. */
  lineRows: { top: number; height: number }[];
  /** The same zone cut wider, to each longer format's length from its left edge (when the lines' pitch is known). */
  wider?: () => LocatedMrz[];
};

/**
 * Estimates the text skew: the angle at which the dark pixels' horizontal projection is sharpest
 * (the sum of squared row counts peaks when text lines are horizontal).
 */
export function estimateSkew(mask: Uint8Array, width: number, height: number): number {
  return skewCandidates(mask, width, height, 1)[0];
}

/**
 * The `count` angles at which the horizontal projection is sharpest, each a local peak at least 2° from the
 * others, sharpest first: the document's text, and print around it (a newspaper) lying at another angle.
 */
export function skewCandidates(mask: Uint8Array, width: number, height: number, count: number): number[] {
  const xs: number[] = [];
  const ys: number[] = [];
  const stride = Math.max(1, Math.floor(Math.sqrt((width * height) / 400_000)));
  for (let y = 0; y < height; y += stride)
    for (let x = 0; x < width; x += stride)
      if (mask[y * width + x]) {
        xs.push(x - width / 2);
        ys.push(y - height / 2);
      }
  if (xs.length < 50) return [0];
  const size = Math.ceil(Math.hypot(width, height)) + 2;
  const bins = new Float64Array(size);
  const scores: { angle: number; score: number }[] = [];
  for (let a = -MAX_SKEW; a <= MAX_SKEW + 1e-9; a += SKEW_STEP) {
    const rad = (a * Math.PI) / 180;
    const s = Math.sin(rad);
    const c = Math.cos(rad);
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) bins[Math.round(ys[i] * c - xs[i] * s + size / 2)]++;
    let score = 0;
    for (let i = 0; i < size; i++) score += bins[i] * bins[i];
    scores.push({ angle: a, score });
  }
  const peaks = scores.filter((p, i) => (i === 0 || p.score >= scores[i - 1].score) && (i === scores.length - 1 || p.score >= scores[i + 1].score));
  peaks.sort((a, b) => b.score - a.score);
  const out: number[] = [];
  for (const p of peaks) if (out.length < count && out.every((a) => Math.abs(a - p.angle) >= 2)) out.push(p.angle);
  return out;
}

export type TextLine = { top: number; bottom: number; left: number; right: number };

/**
 * The horizontal extent of a text band: the longest stretch of columns where dark-run starts are dense
 * (smoothed over about one character), bridging gaps shorter than two line heights (the spaces between
 * words). Scattered noise on the table around the document is not dense, so it does not widen the line.
 */
export function lineExtent(cols: Float64Array, lineHeight: number): { left: number; right: number } {
  const w = cols.length;
  const r = Math.max(2, Math.round(lineHeight / 2));
  const smooth = new Float64Array(w);
  let acc = 0;
  for (let x = 0; x < Math.min(w, r); x++) acc += cols[x];
  for (let x = 0; x < w; x++) {
    if (x + r < w) acc += cols[x + r];
    if (x - r - 1 >= 0) acc -= cols[x - r - 1];
    smooth[x] = acc;
  }
  const max = Math.max(...smooth);
  const dense = (x: number) => smooth[x] >= Math.max(2, max * 0.1);
  const maxGap = 0.6 * lineHeight;
  let best = { left: 0, right: -1 };
  for (let x = 0; x < w; x++) {
    if (!dense(x)) continue;
    let right = x;
    let y = x;
    while (y < w && y - right <= maxGap) {
      if (dense(y)) right = y;
      y++;
    }
    if (right - x > best.right - best.left) best = { left: x, right };
    x = right;
  }
  // The smoothing window reaches r columns past the first and last strokes.
  return best.right - best.left > 2 * r ? { left: best.left + r, right: best.right - r } : best;
}

/**
 * Text lines as bands of rows with many dark-run starts: characters give one per stroke, while the
 * document's edges (long dark runs) give one or two, so edges and shadows never merge lines. Bands that
 * touch the top or bottom of the image are cut by it (or are the frame's own edge) and are left out.
 */
export function textLines(mask: Uint8Array, w: number, h: number): TextLine[] {
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
    if (end - y >= 6 && y > 0 && end < h - 1) {
      const cols = new Float64Array(w);
      for (let yy = y; yy <= end; yy++) for (let x = 1; x < w; x++) if (mask[yy * w + x] && !mask[yy * w + x - 1]) cols[x]++;
      lines.push({ top: y, bottom: end, ...lineExtent(cols, end - y + 1) });
    }
    y = end;
  }
  return lines;
}

/**
 * The MRZ among text lines: the lowest group of 2 or 3 consecutive lines of similar height, evenly and
 * closely spaced, aligned on the left and about as wide as the widest line (the MRZ spans the document;
 * other text does not). Lines are tried from the bottom up, so stray marks below the MRZ are skipped.
 */
export function mrzGroup(lines: TextLine[]): TextLine[] | undefined {
  if (lines.length < 2) return undefined;
  const widest = Math.max(...lines.map((l) => l.right - l.left));
  const height = (l: TextLine) => l.bottom - l.top + 1;
  const fits = (l: TextLine, prev: TextLine) => {
    const ratio = height(l) / height(prev);
    return (
      l.right - l.left >= widest * 0.75 &&
      ratio < 1.6 &&
      ratio > 1 / 1.6 &&
      prev.top - l.bottom <= 1.5 * Math.max(height(l), height(prev)) &&
      Math.min(l.right, prev.right) - Math.max(l.left, prev.left) >= 0.75 * Math.min(l.right - l.left, prev.right - prev.left)
    );
  };
  for (let start = lines.length - 1; start >= 1; start--) {
    const first = lines[start];
    if (first.right - first.left < widest * 0.75) continue;
    const group = [first];
    for (let i = start - 1; i >= 0 && group.length < 3 && fits(lines[i], group[group.length - 1]); i--) group.push(lines[i]);
    if (group.length >= 2) return group;
  }
  return undefined;
}

/**
 * Paints white the dark bars at the strip's left and right ends: the table or the document's edge beside
 * a zone printed close to it, which OCR reads as a `B` or an `I`. A column is a bar when more than 80 % of
 * its pixels are dark over the whole strip height, which no character column is (the strip has a margin
 * above and below the lines).
 */
export function whitenEdgeBars(strip: Canvas): Canvas {
  const g = greyOf(strip);
  const sorted = Uint8Array.from(g.data).sort();
  const paper = sorted[Math.floor(sorted.length * 0.9)];
  const ink = sorted[Math.floor(sorted.length * 0.02)];
  const threshold = (paper + ink) / 2;
  const isBar = (x: number) => {
    let dark = 0;
    for (let y = 0; y < g.height; y++) if (g.data[y * g.width + x] < threshold) dark++;
    return dark > 0.8 * g.height;
  };
  const ctx = strip.getContext('2d');
  ctx.fillStyle = `rgb(${paper},${paper},${paper})`;
  let left = 0;
  while (left < g.width / 4 && isBar(left)) left++;
  let right = g.width - 1;
  while (right > (g.width * 3) / 4 && isBar(right)) right--;
  // A bar's blurred edge is a few columns wide: paint a little past it.
  const fringe = Math.round(g.height * 0.05);
  if (left > 0) ctx.fillRect(0, 0, left + fringe, g.height);
  if (right < g.width - 1) ctx.fillRect(right - fringe, 0, g.width - right + fringe, g.height);
  return strip;
}

/**
 * Finds the machine-readable zone: deskews the photo, finds its text lines and takes the MRZ group
 * (`mrzGroup`). Returns undefined when no such group exists.
 */
export function locateMrz(image: Canvas | import('@napi-rs/canvas').Image): LocatedMrz | undefined {
  const work = toCanvas(image, WORK_WIDTH);
  const mask = darkMask(boxBlur(greyOf(work), 1));
  const skew = estimateSkew(mask, work.width, work.height);
  const straight = skew === 0 ? work : rotateCanvas(work, -skew);
  const m2 = darkMask(boxBlur(greyOf(straight), 1));
  const group = mrzGroup(textLines(m2, straight.width, straight.height));
  return group && cropZone(straight, group, skew);
}

/** The zone of `group` (bottom line first) cut from the deskewed image, with margins, edge bars painted out and scaled for the OCR. */
export function cropZone(straight: Canvas, group: TextLine[], skew: number, expectedWidth?: number, fromLeft = false): LocatedMrz {
  const top = Math.min(...group.map((l) => l.top));
  const bottom = Math.max(...group.map((l) => l.bottom));
  // A line's extent can run into noise or the document's edge beside it, never inwards: every line of the
  // zone starts at the same place, so ends more than a line height outside the innermost one are not used.
  const lh = (bottom - top) / group.length;
  const lefts = group.map((l) => l.left);
  const rights = group.map((l) => l.right);
  // With three lines, the middle value: one line's extent cut short (a shadow's edge across its fillers)
  // or run long is outvoted by the other two, which agree.
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  let left = group.length === 3 ? median(lefts) : Math.min(...lefts.filter((x) => x >= Math.max(...lefts) - lh));
  let right = group.length === 3 ? median(rights) : Math.max(...rights.filter((x) => x <= Math.min(...rights) + lh));
  if (expectedWidth && expectedWidth > right - left) {
    const missing = expectedWidth - (right - left);
    // From the left edge (a line starts with its document code; fillers fade at the end), or half on each side.
    const grow = fromLeft ? Math.min(missing, straight.width - 1 - right) : missing / 2;
    right = Math.min(straight.width - 1, right + grow);
    left = Math.max(0, left - (missing - grow));
  }
  const lineHeight = (bottom - top) / group.length;
  const padY = lineHeight * 0.6;
  // Little margin on the sides: beside the zone lies the document edge or the table, which OCR reads as letters.
  const padX = lineHeight * 0.5;
  const x = Math.max(0, left - padX);
  const y = Math.max(0, top - padY);
  const w = Math.min(straight.width - x, right - left + 2 * padX);
  const h = Math.min(straight.height - y, bottom - top + 2 * padY);
  // Tesseract reads best with characters ~30-40 px high.
  const scale = Math.max(1, Math.min(2, 36 / (lineHeight * 0.6)));
  // The paper's level evened out (a shadow or a gradient across the zone), then the edge bars painted out.
  const cut = cropCanvas(straight, x, y, w, h, scale);
  const strip = whitenEdgeBars(canvasOfGrey(flattened(greyOf(cut), Math.max(3, Math.round(lineHeight * scale * 0.35)))));
  const lineRows = [...group].reverse().map((l) => {
    const rowTop = Math.max(0, Math.round((l.top - lineHeight * 0.5 - y) * scale));
    const rowBottom = Math.min(strip.height, Math.round((l.bottom + lineHeight * 0.5 - y) * scale));
    return { top: rowTop, height: rowBottom - rowTop };
  });
  return { strip, skewDegrees: skew, lineCount: group.length, lineRows };
}
