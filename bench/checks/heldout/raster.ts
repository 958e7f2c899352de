/** HELD-OUT EVALUATION ONLY: the pixel buffers the held-out photos are built in. */

/** 8-bit RGBA, row-major. */
export type Raster = { width: number; height: number; data: Uint8ClampedArray };

/** Linear-ish float RGB (0..255), row-major: what the camera effects work on. */
export type Photo = { width: number; height: number; data: Float32Array };

export const newPhoto = (width: number, height: number): Photo => ({ width, height, data: new Float32Array(width * height * 3) });

/** Bilinear sample of channel `c` at (x, y); outside the image, the nearest edge pixel. */
export function sample(p: Photo, x: number, y: number, c: number): number {
  const { width: w, height: h, data } = p;
  const cx = Math.min(w - 1.001, Math.max(0, x));
  const cy = Math.min(h - 1.001, Math.max(0, y));
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const fx = cx - x0;
  const fy = cy - y0;
  const i = (y0 * w + x0) * 3 + c;
  return (data[i] * (1 - fx) + data[i + 3] * fx) * (1 - fy) + (data[i + 3 * w] * (1 - fx) + data[i + 3 * w + 3] * fx) * fy;
}

/** Box blur of every channel, radius r, in place (three passes approximate a Gaussian of sigma ~ r). */
export function boxBlurPhoto(p: Photo, r: number): void {
  if (r < 1) return;
  const { width: w, height: h, data } = p;
  const line = new Float32Array(Math.max(w, h));
  const pass = (n: number, count: number, index: (k: number, i: number) => number) => {
    for (let k = 0; k < count; k++)
      for (let c = 0; c < 3; c++) {
        let acc = 0;
        for (let i = -r; i <= r; i++) acc += data[index(k, Math.min(n - 1, Math.max(0, i))) + c];
        for (let i = 0; i < n; i++) {
          line[i] = acc / (2 * r + 1);
          acc += data[index(k, Math.min(n - 1, i + r + 1)) + c] - data[index(k, Math.max(0, i - r)) + c];
        }
        for (let i = 0; i < n; i++) data[index(k, i) + c] = line[i];
      }
  };
  pass(w, h, (y, x) => (y * w + x) * 3);
  pass(h, w, (x, y) => (y * w + x) * 3);
}

export function toRgba(p: Photo): Raster {
  const out = new Uint8ClampedArray(p.width * p.height * 4);
  for (let i = 0, j = 0; i < p.data.length; i += 3, j += 4) {
    out[j] = p.data[i];
    out[j + 1] = p.data[i + 1];
    out[j + 2] = p.data[i + 2];
    out[j + 3] = 255;
  }
  return { width: p.width, height: p.height, data: out };
}
