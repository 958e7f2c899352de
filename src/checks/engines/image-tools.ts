import { createCanvas, loadImage, type Canvas, type Image } from '@napi-rs/canvas';

/** An 8-bit grey image, row-major. */
export type GreyImage = { width: number; height: number; data: Uint8Array };

export async function decodeImage(bytes: Buffer): Promise<Image> {
  return loadImage(bytes);
}

/** Draws an image (optionally scaled to `maxWidth`) into a canvas. */
export function toCanvas(img: Image | Canvas, maxWidth = Infinity): Canvas {
  const scale = Math.min(1, maxWidth / img.width);
  const c = createCanvas(Math.round(img.width * scale), Math.round(img.height * scale));
  c.getContext('2d').drawImage(img, 0, 0, c.width, c.height);
  return c;
}

export function greyOf(c: Canvas): GreyImage {
  const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
  const grey = new Uint8Array(c.width * c.height);
  for (let i = 0, j = 0; j < grey.length; i += 4, j++) grey[j] = (data[i] * 77 + data[i + 1] * 150 + data[i + 2] * 29) >> 8;
  return { width: c.width, height: c.height, data: grey };
}

/** A grey image (values clamped to 0..255) drawn into a canvas, for the OCR. */
export function canvasOfGrey(g: { width: number; height: number; data: ArrayLike<number> }): Canvas {
  const out = createCanvas(g.width, g.height);
  const ctx = out.getContext('2d');
  const img = ctx.createImageData(g.width, g.height);
  for (let i = 0; i < g.width * g.height; i++) {
    const v = Math.max(0, Math.min(255, Math.round(g.data[i])));
    img.data[4 * i] = v;
    img.data[4 * i + 1] = v;
    img.data[4 * i + 2] = v;
    img.data[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return out;
}

/** Variance of the 4-neighbour Laplacian over a region: a standard sharpness measure (blur lowers it). */
export function laplacianVariance(g: GreyImage, x0 = 0, y0 = 0, w = g.width, h = g.height): number {
  const x1 = Math.min(g.width - 1, Math.floor(x0 + w));
  const y1 = Math.min(g.height - 1, Math.floor(y0 + h));
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let y = Math.max(1, Math.floor(y0)); y < y1; y++)
    for (let x = Math.max(1, Math.floor(x0)); x < x1; x++) {
      const i = y * g.width + x;
      const l = 4 * g.data[i] - g.data[i - 1] - g.data[i + 1] - g.data[i - g.width] - g.data[i + g.width];
      sum += l;
      sq += l * l;
      n++;
    }
  if (n === 0) return 0;
  const mean = sum / n;
  return sq / n - mean * mean;
}

/**
 * Dark-pixel mask by local (Sauvola-like) thresholding on an integral image: a glare band or a shadow
 * changes the background level across the document, so a single global threshold loses characters.
 */
export function darkMask(g: GreyImage, window = 25, k = 0.2): Uint8Array {
  const { width: w, height: h, data } = g;
  const integral = new Float64Array((w + 1) * (h + 1));
  const integralSq = new Float64Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    let rowSq = 0;
    for (let x = 0; x < w; x++) {
      const v = data[y * w + x];
      row += v;
      rowSq += v * v;
      integral[(y + 1) * (w + 1) + x + 1] = integral[y * (w + 1) + x + 1] + row;
      integralSq[(y + 1) * (w + 1) + x + 1] = integralSq[y * (w + 1) + x + 1] + rowSq;
    }
  }
  const mask = new Uint8Array(w * h);
  const r = Math.floor(window / 2);
  for (let y = 0; y < h; y++) {
    const ya = Math.max(0, y - r);
    const yb = Math.min(h, y + r + 1);
    for (let x = 0; x < w; x++) {
      const xa = Math.max(0, x - r);
      const xb = Math.min(w, x + r + 1);
      const n = (yb - ya) * (xb - xa);
      const s = integral[yb * (w + 1) + xb] - integral[ya * (w + 1) + xb] - integral[yb * (w + 1) + xa] + integral[ya * (w + 1) + xa];
      const sq = integralSq[yb * (w + 1) + xb] - integralSq[ya * (w + 1) + xb] - integralSq[yb * (w + 1) + xa] + integralSq[ya * (w + 1) + xa];
      const mean = s / n;
      const sd = Math.sqrt(Math.max(0, sq / n - mean * mean));
      const threshold = mean * (1 + k * (sd / 128 - 1));
      mask[y * w + x] = data[y * w + x] < threshold && sd > 12 ? 1 : 0;
    }
  }
  return mask;
}

/** Rotates a canvas by `degrees` about its centre, growing it so nothing is cut; the new corners are white. */
export function rotateCanvas(src: Canvas, degrees: number): Canvas {
  const rad = (degrees * Math.PI) / 180;
  const cos = Math.abs(Math.cos(rad));
  const sin = Math.abs(Math.sin(rad));
  const w = Math.round(src.width * cos + src.height * sin);
  const h = Math.round(src.width * sin + src.height * cos);
  const out = createCanvas(w, h);
  const ctx = out.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, h);
  ctx.translate(w / 2, h / 2);
  ctx.rotate(rad);
  ctx.drawImage(src, -src.width / 2, -src.height / 2);
  return out;
}

export function cropCanvas(src: Canvas, x: number, y: number, w: number, h: number, scale = 1): Canvas {
  const out = createCanvas(Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale)));
  out.getContext('2d').drawImage(src, x, y, w, h, 0, 0, out.width, out.height);
  return out;
}

/** Mean over a (2r+1)^2 box: sensor and JPEG noise averaged out before thresholding. */
export function boxBlur(g: GreyImage, r: number): GreyImage {
  const { width: w, height: h, data } = g;
  const tmp = new Float32Array(w * h);
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    let acc = 0;
    for (let x = -r; x <= r; x++) acc += data[y * w + Math.min(w - 1, Math.max(0, x))];
    for (let x = 0; x < w; x++) {
      tmp[y * w + x] = acc / (2 * r + 1);
      acc += data[y * w + Math.min(w - 1, x + r + 1)] - data[y * w + Math.max(0, x - r)];
    }
  }
  // The vertical pass walks rows with one running sum per column (the same sums, added in the same order, as a
  // walk down each column), so it reads memory in order rather than one row apart per step.
  const acc = new Float64Array(w);
  for (let y = -r; y <= r; y++) {
    const row = Math.min(h - 1, Math.max(0, y)) * w;
    for (let x = 0; x < w; x++) acc[x] += tmp[row + x];
  }
  for (let y = 0; y < h; y++) {
    const entering = Math.min(h - 1, y + r + 1) * w;
    const leaving = Math.max(0, y - r) * w;
    for (let x = 0; x < w; x++) {
      out[y * w + x] = Math.round(acc[x] / (2 * r + 1));
      acc[x] += tmp[entering + x] - tmp[leaving + x];
    }
  }
  return { width: w, height: h, data: out };
}

/** Otsu's global threshold of a grey image: the level that best separates ink from paper. */
export function otsuThreshold(g: GreyImage): number {
  const hist = new Float64Array(256);
  for (const v of g.data) hist[v]++;
  const total = g.data.length;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * hist[i];
  let [sumB, wB, best, threshold] = [0, 0, -1, 128];
  for (let t = 0; t < 256; t++) {
    wB += hist[t];
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * hist[t];
    const between = wB * wF * (sumB / wB - (sum - sumB) / wF) ** 2;
    if (between > best) [best, threshold] = [between, t];
  }
  return threshold;
}

/**
 * Grey-level morphology over a (2r+1)^2 square: `darkest` takes each pixel's darkest neighbour (ink strokes
 * grow: a thin print reads bolder), otherwise the lightest (strokes shrink: a heavy print reads thinner).
 */
export function rankFilter(g: GreyImage, r: number, darkest: boolean): GreyImage {
  const { width: w, height: h, data } = g;
  // Separable (rows, then columns), with the comparison written out: this runs on whole photos (flattened).
  const rows = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let v = data[row + x];
      const from = Math.max(0, x - r);
      const to = Math.min(w - 1, x + r);
      if (darkest) {
        for (let xx = from; xx <= to; xx++) if (data[row + xx] < v) v = data[row + xx];
      } else for (let xx = from; xx <= to; xx++) if (data[row + xx] > v) v = data[row + xx];
      rows[row + x] = v;
    }
  }
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const from = Math.max(0, y - r);
    const to = Math.min(h - 1, y + r);
    for (let x = 0; x < w; x++) {
      let v = rows[y * w + x];
      if (darkest) {
        for (let yy = from; yy <= to; yy++) if (rows[yy * w + x] < v) v = rows[yy * w + x];
      } else for (let yy = from; yy <= to; yy++) if (rows[yy * w + x] > v) v = rows[yy * w + x];
      out[y * w + x] = v;
    }
  }
  return { width: w, height: h, data: out };
}

/** Contrast stretched so the darkest 2 % of pixels become black and the lightest 2 % white (a faded or glared print). */
export function stretched(g: GreyImage): GreyImage {
  const sorted = Uint8Array.from(g.data).sort();
  const lo = sorted[Math.floor(sorted.length * 0.02)];
  const hi = sorted[Math.floor(sorted.length * 0.98)];
  const span = Math.max(1, hi - lo);
  return { width: g.width, height: g.height, data: Uint8Array.from(g.data, (v) => Math.max(0, Math.min(255, Math.round(((v - lo) * 255) / span)))) };
}

/**
 * The grey image divided by its own paper: the background is each pixel's lightest neighbour within `r`
 * (characters thinner than 2r vanish from it), smoothed; dividing by it leaves the ink on an even white,
 * so a shadow's edge or a brightness gradient across the zone no longer changes the paper's level.
 */
export function flattened(g: GreyImage, r: number): GreyImage {
  const background = boxBlur(rankFilter(g, r, false), r);
  return { width: g.width, height: g.height, data: Uint8Array.from(g.data, (v, i) => Math.min(255, Math.round((255 * v) / Math.max(1, background.data[i])))) };
}
