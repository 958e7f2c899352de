/**
 * HELD-OUT EVALUATION ONLY (never used to tune the reader; see heldout-set.ts): a phone photo of a
 * held-out page. The page lies on a table (wood, dark or light desk, fabric, newspaper) and is mapped
 * through a true homography (rotation, perspective); then the document's effects, each within what a
 * person can still read: partial crops, white balance, brightness gradients, shadows across the zone,
 * glare bands and spots, defocus and motion blur, rolling shutter, moiré, downscaling, sensor noise and
 * JPEG. Clean documents are the flat page on a table, as a PNG.
 */
import { createCanvas } from '@napi-rs/canvas';
import { seededRandom } from '../mrz-lines';
import type { Effect, HeldoutDocument } from './heldout-set';
import type { ZoneLayout } from './heldout-page';
import { boxBlurPhoto, newPhoto, sample, toRgba, type Photo, type Raster } from './raster';

type Point = [number, number];

/** The homography taking the four points `from` to `to` (3x3, row-major, h33 = 1). */
export function homography(from: Point[], to: Point[]): number[] {
  const A: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i];
    const [u, v] = to[i];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let k = c; k < 9; k++) A[r][k] -= f * A[c][k];
    }
  }
  return [...A.map((row, i) => row[8] / row[i]), 1];
}

export const apply = (H: number[], [x, y]: Point): Point => {
  const w = H[6] * x + H[7] * y + H[8];
  return [(H[0] * x + H[1] * y + H[2]) / w, (H[3] * x + H[4] * y + H[5]) / w];
};

function table(w: number, h: number, rand: () => number): Photo {
  const p = newPhoto(w, h);
  const kind = Math.floor(rand() * 5);
  const base = [
    [120, 84, 52], // wood
    [48, 48, 54], // dark desk
    [214, 212, 204], // light desk: little contrast with the page's edge
    [70, 92, 120], // fabric
    [226, 224, 216], // newspaper
  ][kind];
  const phase = rand() * 10;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let v = 0;
      if (kind === 0) v = 18 * Math.sin(y / 9 + 3 * Math.sin(x / 140 + phase)) + 8 * Math.sin(y / 2.7);
      else if (kind === 3) v = 14 * (((x >> 2) + (y >> 2)) % 2) - 7;
      else v = (rand() - 0.5) * 10;
      const i = (y * w + x) * 3;
      for (let c = 0; c < 3; c++) p.data[i + c] = base[c] + v;
    }
  if (kind === 4) {
    // Columns of small print around the document: text-like marks the locator must not take for a zone.
    for (let row = 12; row < h; row += 22)
      for (let x = 10; x < w - 10; x += 9)
        if (rand() < 0.75)
          for (let dy = -6; dy <= 0; dy++)
            for (let dx = 0; dx < 5; dx++) if (rand() < 0.45) p.data[((row + dy) * w + x + dx) * 3] = p.data[((row + dy) * w + x + dx) * 3 + 1] = p.data[((row + dy) * w + x + dx) * 3 + 2] = 60;
  }
  return p;
}

/** Draws `page` (RGBA, its transparent corners left out) into `photo` through the inverse homography `Hinv`, within `box`. */
function place(photo: Photo, page: Raster, Hinv: number[], box: [number, number, number, number]): void {
  const pw = page.width;
  const ph = page.height;
  const d = page.data;
  const [bx0, by0, bx1, by1] = [Math.max(0, Math.floor(box[0])), Math.max(0, Math.floor(box[1])), Math.min(photo.width, Math.ceil(box[2])), Math.min(photo.height, Math.ceil(box[3]))];
  for (let y = by0; y < by1; y++)
    for (let x = bx0; x < bx1; x++) {
      const [u, v] = apply(Hinv, [x + 0.5, y + 0.5]);
      if (u < 0 || v < 0 || u >= pw - 1 || v >= ph - 1) continue;
      const x0 = Math.floor(u);
      const y0 = Math.floor(v);
      const fx = u - x0;
      const fy = v - y0;
      const i00 = (y0 * pw + x0) * 4;
      const [w00, w01, w10, w11] = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy];
      const at = (k: number) => d[i00 + k] * w00 + d[i00 + 4 + k] * w01 + d[i00 + 4 * pw + k] * w10 + d[i00 + 4 * pw + 4 + k] * w11;
      const a = at(3) / 255;
      if (a <= 0) continue;
      const i = (y * photo.width + x) * 3;
      for (let c = 0; c < 3; c++) photo.data[i + c] = photo.data[i + c] * (1 - a) + at(c) * a;
    }
}

function crop(p: Photo, x0: number, y0: number, x1: number, y1: number): Photo {
  const [a, b] = [Math.max(0, Math.floor(x0)), Math.max(0, Math.floor(y0))];
  const w = Math.min(p.width, Math.ceil(x1)) - a;
  const h = Math.min(p.height, Math.ceil(y1)) - b;
  const out = newPhoto(w, h);
  for (let y = 0; y < h; y++) out.data.set(p.data.subarray(((y + b) * p.width + a) * 3, ((y + b) * p.width + a + w) * 3), y * w * 3);
  return out;
}

function resample(p: Photo, f: number): Photo {
  const blurred = { ...p, data: new Float32Array(p.data) };
  boxBlurPhoto(blurred, Math.max(0, Math.round(0.5 / f - 0.5)));
  const out = newPhoto(Math.round(p.width * f), Math.round(p.height * f));
  for (let y = 0; y < out.height; y++) for (let x = 0; x < out.width; x++) for (let c = 0; c < 3; c++) out.data[(y * out.width + x) * 3 + c] = sample(blurred, (x + 0.5) / f - 0.5, (y + 0.5) / f - 0.5, c);
  return out;
}

/** Multiplies each pixel by `gain(x, y)` (lighting) and adds `add(x, y)` (glare). */
function light(p: Photo, gain: (x: number, y: number) => number, add: (x: number, y: number) => number = () => 0): void {
  for (let y = 0; y < p.height; y++)
    for (let x = 0; x < p.width; x++) {
      const g = gain(x, y);
      const a = add(x, y);
      const i = (y * p.width + x) * 3;
      for (let c = 0; c < 3; c++) p.data[i + c] = p.data[i + c] * g + a * (255 - p.data[i + c] * g);
    }
}

const smoothstep = (e: number) => (e <= 0 ? 0 : e >= 1 ? 1 : e * e * (3 - 2 * e));

/** The photo of a held-out document, encoded as its kind says (clean: PNG; otherwise JPEG). */
export async function photograph(doc: HeldoutDocument, page: Raster, zone: ZoneLayout): Promise<{ bytes: Buffer; contentType: string }> {
  const rand = seededRandom(doc.seed ^ 0x5eed);
  const has = (e: Effect) => doc.effects.includes(e);
  const W = Math.round(page.width * (1.18 + rand() * 0.3));
  const H = Math.round(page.height * (1.25 + rand() * 0.35));
  const photo = table(W, H, rand);
  // Where the page's corners land: centred with some play, turned, and foreshortened.
  const theta = ((has('rotation') ? (3 + rand() * 7) * (rand() < 0.5 ? -1 : 1) : doc.kind === 'clean' ? 0 : (rand() - 0.5) * 1.6) * Math.PI) / 180;
  const persp = has('perspective') ? 0.04 + rand() * 0.08 : 0;
  const cx = W / 2 + (rand() - 0.5) * (W - page.width) * 0.4;
  const cy = H / 2 + (rand() - 0.5) * (H - page.height) * 0.4;
  const corners: Point[] = [
    [-page.width / 2, -page.height / 2],
    [page.width / 2, -page.height / 2],
    [page.width / 2, page.height / 2],
    [-page.width / 2, page.height / 2],
  ];
  const tiltTop = rand() < 0.6;
  const quad = corners.map(([x, y], k): Point => {
    let [px, py] = [x, y];
    if (persp) {
      // The far edge (top, or one side) is shorter; every corner moves a little on its own.
      if (tiltTop && k < 2) px *= 1 - persp;
      if (!tiltTop && (k === 1 || k === 2)) py *= 1 - persp;
      px += (rand() - 0.5) * persp * page.width * 0.3;
      py += (rand() - 0.5) * persp * page.height * 0.3;
    }
    return [cx + px * Math.cos(theta) - py * Math.sin(theta), cy + px * Math.sin(theta) + py * Math.cos(theta)];
  });
  const pageCorners: Point[] = [
    [0, 0],
    [page.width, 0],
    [page.width, page.height],
    [0, page.height],
  ];
  place(photo, page, homography(quad, pageCorners), [Math.min(...quad.map((q) => q[0])), Math.min(...quad.map((q) => q[1])), Math.max(...quad.map((q) => q[0])) + 1, Math.max(...quad.map((q) => q[1])) + 1]);
  let p = photo;
  const toPhoto = homography(pageCorners, quad);
  const zoneCorners = ([[zone.left, zone.top], [zone.right, zone.top], [zone.right, zone.bottom], [zone.left, zone.bottom]] as Point[]).map((c) => apply(toPhoto, c));
  let zx0 = Math.min(...zoneCorners.map((c) => c[0]));
  let zx1 = Math.max(...zoneCorners.map((c) => c[0]));
  let zy0 = Math.min(...zoneCorners.map((c) => c[1]));
  let zy1 = Math.max(...zoneCorners.map((c) => c[1]));
  const pitch = zone.pitch;
  if (has('partial-crop')) {
    // One to three sides cut close to the zone (the document's own edges out of frame), the zone whole.
    const sides = [rand() < 0.7, rand() < 0.4, rand() < 0.4, rand() < 0.4];
    if (!sides.some(Boolean)) sides[0] = true;
    const x0 = Math.max(0, Math.floor(sides[1] ? zx0 - pitch * (0.6 + rand()) : 0));
    const y0 = Math.max(0, Math.floor(sides[0] ? zy0 - (zy1 - zy0) * (0.3 + rand() * 1.2) : 0));
    p = crop(p, x0, y0, sides[2] ? zx1 + pitch * (0.6 + rand()) : W, sides[3] ? zy1 + pitch * (0.5 + rand() * 0.8) : H);
    [zx0, zx1, zy0, zy1] = [zx0 - x0, zx1 - x0, zy0 - y0, zy1 - y0];
  }
  if (has('white-balance')) {
    const gains = [0.78 + rand() * 0.44, 0.9 + rand() * 0.2, 0.78 + rand() * 0.44];
    for (let i = 0; i < p.data.length; i++) p.data[i] *= gains[i % 3];
  }
  if (has('brightness-gradient')) {
    const a = rand() * Math.PI * 2;
    const [g0, g1] = [0.5 + rand() * 0.25, 1.05 + rand() * 0.2];
    const span = Math.abs(Math.cos(a)) * p.width + Math.abs(Math.sin(a)) * p.height;
    light(p, (x, y) => g0 + (g1 - g0) * smoothstep(0.5 + ((x - p.width / 2) * Math.cos(a) + (y - p.height / 2) * Math.sin(a)) / span));
  }
  if (has('shadow')) {
    // A soft shadow edge (a hand, the phone) crossing the zone.
    const a = rand() * Math.PI;
    const [sx, sy] = [zx0 + rand() * (zx1 - zx0), (zy0 + zy1) / 2];
    const soft = 15 + rand() * 45;
    const depth = 0.45 + rand() * 0.25;
    light(p, (x, y) => 1 - (1 - depth) * smoothstep(((x - sx) * Math.cos(a) + (y - sy) * Math.sin(a)) / soft + 0.5));
  }
  if (has('glare')) {
    const band = rand() < 0.6;
    const a = rand() * Math.PI;
    const [gx, gy] = [zx0 + rand() * (zx1 - zx0), zy0 + rand() * (zy1 - zy0)];
    const width = 25 + rand() * 70;
    const strength = 0.35 + rand() * 0.3;
    light(
      p,
      () => 1,
      band
        ? (x, y) => strength * Math.exp(-(((x - gx) * Math.cos(a) + (y - gy) * Math.sin(a)) ** 2) / (2 * width * width))
        : (x, y) => strength * 1.2 * Math.exp(-((x - gx) ** 2 + ((y - gy) * 1.8) ** 2) / (2 * (width * 1.5) ** 2)),
    );
  }
  if (has('blur')) boxBlurPhoto(p, 1 + Math.floor(rand() * 2));
  if (has('motion-blur')) {
    const len = 3 + rand() * 5;
    const a = rand() * Math.PI;
    // Integer pixel steps along the motion (nearest sample): a smear of `len` pixels.
    const src = new Float32Array(p.data);
    const n = Math.ceil(len);
    const steps = Array.from({ length: n + 1 }, (_, k) => {
      const t = (k / n - 0.5) * len;
      return [Math.round(t * Math.cos(a)), Math.round(t * Math.sin(a))];
    });
    for (let y = 0; y < p.height; y++)
      for (let x = 0; x < p.width; x++) {
        const o = (y * p.width + x) * 3;
        for (let c = 0; c < 3; c++) {
          let acc = 0;
          for (const [dx, dy] of steps) {
            const xx = Math.min(p.width - 1, Math.max(0, x + dx));
            const yy = Math.min(p.height - 1, Math.max(0, y + dy));
            acc += src[(yy * p.width + xx) * 3 + c];
          }
          p.data[o + c] = acc / steps.length;
        }
      }
  }
  if (has('rolling-shutter')) {
    // Each row read a little later while the hand moves: a shear plus a wobble.
    const shear = (rand() - 0.5) * 0.04;
    const amp = 1 + rand() * 3;
    const period = 150 + rand() * 400;
    const phase = rand() * 6.28;
    const src = { ...p, data: new Float32Array(p.data) };
    for (let y = 0; y < p.height; y++) {
      const dx = shear * (y - p.height / 2) + amp * Math.sin((y / period) * 6.28 + phase);
      for (let x = 0; x < p.width; x++) for (let c = 0; c < 3; c++) p.data[(y * p.width + x) * 3 + c] = sample(src, x + dx, y, c);
    }
  }
  if (has('moire')) {
    // Two fine gratings at slightly different angles and pitches beat into broad bands (a screen, a print).
    const [a1, a2] = [rand() * Math.PI, rand() * Math.PI];
    const [f1, f2] = [1 / (2.2 + rand() * 1.5), 1 / (2.2 + rand() * 1.5)];
    const amp = 0.06 + rand() * 0.08;
    light(p, (x, y) => 1 - amp * (1 + Math.cos(6.283 * f1 * (x * Math.cos(a1) + y * Math.sin(a1))) * Math.cos(6.283 * f2 * (x * Math.cos(a2) + y * Math.sin(a2)))));
  }
  if (has('downscale')) {
    // Characters 11-15 px apart: small, but a person still reads them.
    const f = (11 + rand() * 4) / pitch;
    if (f < 1) p = resample(p, f);
  }
  const sigma = has('noise') ? 5 + rand() * 9 : doc.kind === 'clean' ? 0 : 1.5;
  if (sigma > 0)
    for (let i = 0; i < p.data.length; i += 3) {
      const luma = (rand() + rand() + rand() - 1.5) * 2 * sigma;
      for (let c = 0; c < 3; c++) p.data[i + c] += luma + (rand() - 0.5) * sigma * 0.6;
    }
  const rgba = toRgba(p);
  const canvas = createCanvas(rgba.width, rgba.height);
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(rgba.width, rgba.height);
  img.data.set(rgba.data);
  ctx.putImageData(img, 0, 0);
  if (doc.kind === 'clean') return { bytes: await canvas.encode('png'), contentType: 'image/png' };
  const quality = has('jpeg-heavy') ? 30 + Math.floor(rand() * 16) : 70 + Math.floor(rand() * 23);
  return { bytes: await canvas.encode('jpeg', quality), contentType: 'image/jpeg' };
}
