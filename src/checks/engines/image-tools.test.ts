import { boxBlur, canvasOfGrey, type GreyImage } from './image-tools';

/** A repeatable pseudo-random grey image (a linear congruential generator: no seed library needed). */
function noiseImage(width: number, height: number, seed: number): GreyImage {
  const data = new Uint8Array(width * height);
  let state = seed;
  for (let i = 0; i < data.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    data[i] = state >>> 24;
  }
  return { width, height, data };
}

/** The blur as first written (a walk down each column): the faster walk must give every pixel the same value. */
function columnWalkBlur(g: GreyImage, r: number): Uint8Array {
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
  for (let x = 0; x < w; x++) {
    let acc = 0;
    for (let y = -r; y <= r; y++) acc += tmp[Math.min(h - 1, Math.max(0, y)) * w + x];
    for (let y = 0; y < h; y++) {
      out[y * w + x] = Math.round(acc / (2 * r + 1));
      acc += tmp[Math.min(h - 1, y + r + 1) * w + x] - tmp[Math.max(0, y - r) * w + x];
    }
  }
  return out;
}

describe('boxBlur', () => {
  it.each([
    [37, 23, 1],
    [64, 9, 4],
    [5, 40, 7],
    [1, 1, 2],
  ])('blurs a %ix%i image with radius %i exactly as the column walk does', (w, h, r) => {
    const image = noiseImage(w, h, w * 31 + h);
    expect(Buffer.from(boxBlur(image, r).data).equals(Buffer.from(columnWalkBlur(image, r)))).toBe(true);
  });

  it('leaves a flat image flat, edges included', () => {
    const flat = { width: 12, height: 7, data: new Uint8Array(84).fill(200) };
    expect([...boxBlur(flat, 3).data].every((v) => v === 200)).toBe(true);
  });
});

describe('canvasOfGrey', () => {
  it('draws each grey value into red, green and blue, opaque', () => {
    const image = noiseImage(19, 11, 7);
    const { data } = canvasOfGrey(image).getContext('2d').getImageData(0, 0, 19, 11);
    for (let i = 0; i < image.data.length; i++) {
      expect([data[4 * i], data[4 * i + 1], data[4 * i + 2], data[4 * i + 3]]).toEqual([image.data[i], image.data[i], image.data[i], 255]);
    }
  });

  it('rounds and clamps values that are not bytes', () => {
    const { data } = canvasOfGrey({ width: 4, height: 1, data: [-20, 12.5, 99.4, 300] }).getContext('2d').getImageData(0, 0, 4, 1);
    expect([data[0], data[4], data[8], data[12]]).toEqual([0, 13, 99, 255]);
  });
});
