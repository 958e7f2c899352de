/**
 * Training lines for the MRZ recogniser (scripts/train-mrz-model.sh, docs/checks.md "A recogniser trained
 * on the tuning generator"): zones of the TUNING generator (mrz-lines.ts fields, drawn as
 * synthetic-document.ts draws them, with its OCR-B; never the held-out generator under heldout/, which is
 * kept for evaluation only), each line at stroke weights from thin to heavy under glare, shadows, blur,
 * low resolution, noise and JPEG, written as the OCR sees it (the flattened grey line, or one of the
 * reader's binarisations) with its printed text: `<n>.png`, `<n>.gt.txt` and `<n>.box` (one WordStr line,
 * as tesstrain writes them), the input of `tesseract ... lstm.train`.
 *
 * Usage: node dist/bench/checks/mrz-training-lines.js <out dir> [documents] [seed]
 * Names and document numbers are drawn over the whole MRZ alphabet, so the model learns glyphs, not the
 * tuning set's dozen names.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';
import type { MrzFormat } from '../../src/checks/check-providers';
import { boxBlur, canvasOfGrey, cropCanvas, flattened, greyOf, rankFilter } from '../../src/checks/engines/image-tools';
import { binarised, otsuBinarised } from '../../src/checks/engines/mrz-strip-variants';
import { buildMrz, randomFields, seededRandom } from './mrz-lines';
import { ensureFont } from './synthetic-document';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALPHABET = LETTERS + '0123456789';

function randomName(rand: () => number, words: number): string {
  return Array.from({ length: words }, () => Array.from({ length: 2 + Math.floor(rand() * 9) }, () => LETTERS[Math.floor(rand() * 26)]).join('')).join(' ');
}

/**
 * One MRZ line as the reader's locator cuts it (the line's row of the deskewed, flattened zone, scaled so
 * characters are 30-45 px apart, with the edges of the lines above and below in its margins), drawn the
 * way synthetic-document.ts draws a zone (OCR-B at a fixed pitch) at a stroke weight from thin (paper drawn
 * over the glyphs' outline) to heavy (ink drawn over it), then photographed: a glare band, a shadow edge,
 * blur, a low-resolution capture, noise, a slight tilt, JPEG. Drawing the line alone costs a few
 * milliseconds, where a whole photo through the locator costs about a second of CPU.
 */
async function trainingLine(text: string, above: string, below: string, rand: () => number): Promise<Canvas> {
  const advance = 30 + rand() * 14;
  const font = advance * 1.51;
  const gap = advance * 1.72;
  const height = Math.round(gap * (1.3 + rand() * 0.3));
  const margin = advance * (0.3 + rand() * 0.6);
  const width = Math.round(text.length * advance + 2 * margin);
  const c = createCanvas(width, height);
  const ctx = c.getContext('2d');
  const paper = 215 + Math.floor(rand() * 40);
  ctx.fillStyle = `rgb(${paper},${paper - 4},${paper - 15})`;
  ctx.fillRect(0, 0, width, height);
  const ink = Math.floor(rand() * 70);
  ctx.font = `${font}px OCR-B`;
  ctx.translate(width / 2, height / 2);
  ctx.rotate(((rand() * 2 - 1) * 0.6 * Math.PI) / 180);
  ctx.translate(-width / 2, -height / 2);
  const baseline = height / 2 + font * 0.36;
  const rows: [string, number][] = [[above, baseline - gap], [text, baseline], [below, baseline + gap]];
  const weight = rand();
  const stroke = weight < 0.4 ? { colour: ctx.fillStyle as string, width: (0.6 + rand() * 1.6) * (advance / 24.4) } : weight < 0.65 ? { colour: `rgb(${ink},${ink},${ink + 10})`, width: (0.5 + rand() * 1.5) * (advance / 24.4) } : undefined;
  const paperStyle = ctx.fillStyle;
  for (const [line, y] of rows) {
    ctx.fillStyle = `rgb(${ink},${ink},${ink + 10})`;
    for (let i = 0; i < line.length; i++) ctx.fillText(line[i], margin + i * advance, y);
    if (stroke) {
      ctx.strokeStyle = stroke.colour === paperStyle ? String(paperStyle) : stroke.colour;
      ctx.lineWidth = stroke.width;
      for (let i = 0; i < line.length; i++) ctx.strokeText(line[i], margin + i * advance, y);
    }
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  if (rand() < 0.6) {
    // Glare: a band of white light across part of the line, strong enough to fade thin strokes.
    const gx = width * rand();
    const half = advance * (2 + rand() * 8);
    const g = ctx.createLinearGradient(gx - half, 0, gx + half, 0);
    g.addColorStop(0, 'rgba(255,255,255,0)');
    g.addColorStop(0.5, `rgba(255,255,255,${0.35 + rand() * 0.5})`);
    g.addColorStop(1, 'rgba(255,255,255,0)');
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, width, height);
  }
  if (rand() < 0.2) {
    const gx = width * rand();
    const g = ctx.createLinearGradient(gx - advance, 0, gx + advance, 0);
    g.addColorStop(0, 'rgba(20,15,10,0)');
    g.addColorStop(1, `rgba(20,15,10,${0.3 + rand() * 0.35})`);
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, width, height);
  }
  // The camera: a lower resolution (characters 11-25 px apart in the photo), blur, noise, JPEG.
  const lowRes = 0.3 + rand() * 0.5;
  const small = createCanvas(Math.max(1, Math.round(width * lowRes)), Math.max(1, Math.round(height * lowRes)));
  const sctx = small.getContext('2d');
  const blur = rand() < 0.25 ? 0 : rand() * 1.6;
  if (blur) sctx.filter = `blur(${blur}px)`;
  sctx.drawImage(c, 0, 0, small.width, small.height);
  const noise = rand() * 14;
  if (noise) {
    const img = sctx.getImageData(0, 0, small.width, small.height);
    for (let i = 0; i < img.data.length; i += 4) {
      const n = (rand() + rand() + rand() - 1.5) * 2 * noise;
      for (let k = 0; k < 3; k++) img.data[i + k] = Math.max(0, Math.min(255, img.data[i + k] + n));
    }
    sctx.putImageData(img, 0, 0);
  }
  const shot = rand() < 0.7 ? await loadImage(await small.encode('jpeg', 35 + Math.floor(rand() * 55))) : small;
  const back = createCanvas(width, height);
  back.getContext('2d').drawImage(shot, 0, 0, width, height);
  // The locator's own last steps: the paper's level flattened (radius about a third of the text's height).
  return canvasOfGrey(flattened(greyOf(back), Math.max(3, Math.round(font * 0.25))));
}

function randomLine(rand: () => number, length: number): string {
  return Array.from({ length }, () => (rand() < 0.35 ? '<' : ALPHABET[Math.floor(rand() * ALPHABET.length)])).join('');
}

/** The images of one line the reader may give the OCR: grey (always), and one of its other preprocessings. */
function lineImages(line: Canvas, rand: () => number): Canvas[] {
  const grey = greyOf(line);
  const others: (() => Canvas)[] = [
    () => binarised(line, Math.round(line.height * 0.75)),
    () => otsuBinarised(line),
    () => canvasOfGrey(rankFilter(grey, 1, true)),
    () => canvasOfGrey(rankFilter(grey, 1, false)),
    () => cropCanvas(line, 0, 0, line.width, line.height, 0.75),
    () => canvasOfGrey(boxBlur(grey, 1)),
  ];
  return [line, others[Math.floor(rand() * others.length)]()];
}

async function main(): Promise<void> {
  const [out, countArg, seedArg] = process.argv.slice(2);
  if (!out) throw new Error('usage: mrz-training-lines.js <out dir> [documents] [seed]');
  const count = Number(countArg ?? 600);
  const rand = seededRandom(Number(seedArg ?? 20261210));
  const now = new Date('2026-11-29T01:00:00Z');
  ensureFont();
  mkdirSync(out, { recursive: true });
  const formats: MrzFormat[] = ['TD1', 'TD2', 'TD3'];
  let written = 0;
  for (let d = 0; d < count; d++) {
    const format = formats[d % 3];
    const fields = randomFields(rand, format, now);
    fields.surname = randomName(rand, 1 + Math.floor(rand() * 2));
    fields.givenNames = rand() < 0.1 ? '' : randomName(rand, 1 + Math.floor(rand() * 2));
    fields.documentNumber = Array.from({ length: 9 }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join('');
    const mrz = buildMrz(fields);
    for (const [i, text] of mrz.entries()) {
      const line = await trainingLine(text, mrz[i - 1] ?? (rand() < 0.5 ? '' : randomLine(rand, text.length)), mrz[i + 1] ?? '', rand);
      for (const image of lineImages(line, rand)) {
        const base = path.join(out, String(written).padStart(5, '0'));
        writeFileSync(`${base}.png`, image.toBuffer('image/png'));
        writeFileSync(`${base}.gt.txt`, `${text}\n`);
        writeFileSync(`${base}.box`, `WordStr 0 0 ${image.width} ${image.height} 0 #${text}\n\t ${image.width} 0 ${image.width + 1} ${image.height + 1} 0\n`);
        written++;
      }
    }
  }
  process.stdout.write(JSON.stringify({ documents: count, lines: written }) + '\n');
}

void main().catch((e) => {
  process.stderr.write(`${String(e?.stack ?? e)}\n`);
  process.exit(1);
});
