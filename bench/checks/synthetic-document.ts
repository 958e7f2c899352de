/**
 * Renders synthetic identity documents (TD1 card back, TD2 card, TD3 passport data page) with their
 * MRZ in the OCR-B font, and degrades them as a phone photo would: blur, noise, rotation, perspective,
 * a glare band and JPEG quality 40. Used by the unit tests and `npm run eval:checks`; nothing here is
 * a real document.
 */
import path from 'node:path';
import { createCanvas, GlobalFonts, loadImage, type Image, type SKRSContext2D } from '@napi-rs/canvas';
import type { MrzFields, MrzFormat } from '../../src/checks/check-providers';
import { buildMrz } from './mrz-lines';

/** Debian `fonts-ocr-b` (public domain), copied into the project: see assets/fonts/README.md. */
const FONT_FILE = path.join(__dirname, '..', '..', '..', 'assets', 'fonts', 'OCRB.otf');
const FONT_FILE_SRC = path.join(__dirname, '..', '..', 'assets', 'fonts', 'OCRB.otf');
let fontLoaded = false;
export function ensureFont(): void {
  if (fontLoaded) return;
  if (!GlobalFonts.registerFromPath(FONT_FILE_SRC, 'OCR-B') && !GlobalFonts.registerFromPath(FONT_FILE, 'OCR-B')) throw new Error('OCR-B font not found in assets/fonts');
  fontLoaded = true;
}

export type Degradation = {
  blur?: number;
  noise?: number;
  rotateDegrees?: number;
  perspective?: number;
  glare?: boolean;
  /** The glare band's opacity at its middle (0.55 when not given). */
  glareAlpha?: number;
  jpegQuality?: number;
  /** A hand's or phone's soft shadow: an edge at this angle (degrees) across the zone, darkening to `shadow.depth`. */
  shadow?: { angle: number; offset: number; depth: number };
  /** A thin print: the zone's strokes thinned by this many pixels of paper drawn over their outline. */
  thinPrint?: number;
  /** A heavy print: the zone's strokes thickened by this many pixels of ink drawn over their outline. */
  boldPrint?: number;
  /** Text lines just above the zone, as wide as it or wider (a card back's address, a page's labels). */
  textAbove?: number;
  /** Printed matter on the table around the document (a newspaper, a form). */
  busyTable?: boolean;
};

/** Document sizes in millimetres (ICAO 9303) and the MRZ character pitch of 2.54 mm. */
const SIZE_MM: Record<MrzFormat, [number, number]> = { TD1: [85.6, 54], TD2: [105, 74], TD3: [125, 88] };
const PX_PER_MM = 10;

function drawDocument(ctx: SKRSContext2D, fields: MrzFields, lines: string[], w: number, h: number, portrait?: Image, look: Degradation = {}, rand: () => number = Math.random): void {
  ctx.fillStyle = '#f3efe4';
  ctx.fillRect(0, 0, w, h);
  // A faint guilloche-like pattern so the background is not flat.
  ctx.strokeStyle = 'rgba(90,120,160,0.18)';
  for (let i = 0; i < 40; i++) {
    ctx.beginPath();
    ctx.arc(w * 0.7, h * 0.3, 20 + i * 9, 0, Math.PI * 2);
    ctx.stroke();
  }
  ctx.fillStyle = '#9aa3ad';
  ctx.fillRect(w * 0.05, h * 0.12, w * 0.25, h * 0.5);
  if (portrait) {
    // The holder's photo, cropped to the photo box's proportions from the middle of the image.
    const [bw, bh] = [w * 0.25, h * 0.5];
    const scale = Math.max(bw / portrait.width, bh / portrait.height);
    const [sw, sh] = [bw / scale, bh / scale];
    // Printed a little grey, as on a card.
    ctx.filter = 'grayscale(0.6) contrast(0.95)';
    ctx.drawImage(portrait, (portrait.width - sw) / 2, (portrait.height - sh) / 2, sw, sh, w * 0.05, h * 0.12, bw, bh);
    ctx.filter = 'none';
  }
  ctx.fillStyle = '#1d2a44';
  ctx.font = `${Math.round(h * 0.05)}px sans-serif`;
  const x = w * 0.35;
  const labels = [`${fields.surname}`, `${fields.givenNames}`, `${fields.nationality}  ${fields.dateOfBirth}`, `${fields.documentNumber}  ${fields.expiryDate}`];
  labels.forEach((t, i) => ctx.fillText(t, x, h * (0.18 + i * 0.09)));
  const pitch = 2.54 * PX_PER_MM;
  ctx.font = `${Math.round(pitch * 1.45)}px OCR-B`;
  ctx.fillStyle = '#111';
  const lineGap = pitch * 1.65;
  const top = h - lines.length * lineGap - h * 0.04;
  lines.forEach((line, i) => {
    for (let c = 0; c < line.length; c++) ctx.fillText(line[c], w * 0.04 + c * pitch * 0.96, top + (i + 1) * lineGap - pitch * 0.4);
  });
  if (look.thinPrint) {
    ctx.strokeStyle = '#f3efe4';
    ctx.lineWidth = look.thinPrint;
    lines.forEach((line, i) => {
      for (let c = 0; c < line.length; c++) ctx.strokeText(line[c], w * 0.04 + c * pitch * 0.96, top + (i + 1) * lineGap - pitch * 0.4);
    });
  }
  if (look.boldPrint) {
    ctx.strokeStyle = '#111';
    ctx.lineWidth = look.boldPrint;
    lines.forEach((line, i) => {
      for (let c = 0; c < line.length; c++) ctx.strokeText(line[c], w * 0.04 + c * pitch * 0.96, top + (i + 1) * lineGap - pitch * 0.4);
    });
  }
  if (look.textAbove) {
    // Address and authority lines in a proportional font just above the zone, about as wide as it.
    ctx.fillStyle = '#2a2a2a';
    ctx.font = `${Math.round(pitch * (0.9 + rand() * 0.5))}px sans-serif`;
    for (let i = 0; i < look.textAbove; i++) ctx.fillText(randomWords(rand, 60), w * 0.04, top - (look.textAbove - i - 0.3) * pitch * 1.5);
  }
}

/** Words of random capitals and digits, about `chars` characters long (text that is not an MRZ). */
function randomWords(rand: () => number, chars: number): string {
  const abc = 'ABCDEFGHIJKLMNOPRSTUVWYZ0123456789';
  let out = '';
  while (out.length < chars) out += Array.from({ length: 2 + Math.floor(rand() * 8) }, () => abc[Math.floor(rand() * abc.length)]).join('') + ' ';
  return out.trim();
}

/** The document as a PNG or JPEG, clean when `degradation` is empty. */
/** `mrz` overrides the zone printed (e.g. a tampered check digit); by default it is built from `fields`. */
export async function renderDocument(
  fields: MrzFields,
  degradation: Degradation = {},
  rand: () => number = Math.random,
  mrz: string[] = buildMrz(fields),
  portrait?: Buffer,
): Promise<{ bytes: Buffer; contentType: string; mrz: string[] }> {
  ensureFont();
  const [wmm, hmm] = SIZE_MM[fields.format];
  const w = Math.round(wmm * PX_PER_MM);
  const h = Math.round(hmm * PX_PER_MM);
  const doc = createCanvas(w, h);
  drawDocument(doc.getContext('2d'), fields, mrz, w, h, portrait ? await loadImage(portrait) : undefined, degradation, rand);

  // The photo: the document on a darker table, with a margin for rotation and perspective.
  const margin = Math.round(w * 0.12);
  const out = createCanvas(w + 2 * margin, h + 2 * margin);
  const ctx = out.getContext('2d');
  ctx.fillStyle = '#5b5046';
  ctx.fillRect(0, 0, out.width, out.height);
  if (degradation.busyTable) {
    // Newspaper columns on the table: lines of dark print on light paper, right up to the document.
    ctx.fillStyle = '#d9d6cf';
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.fillStyle = '#333';
    const size = 14 + Math.floor(rand() * 10);
    ctx.font = `${size}px serif`;
    for (let y = size; y < out.height; y += size * 1.3) ctx.fillText(randomWords(rand, 200).toLowerCase(), 4, y);
  }
  ctx.save();
  ctx.translate(out.width / 2, out.height / 2);
  ctx.rotate(((degradation.rotateDegrees ?? 0) * Math.PI) / 180);
  const p = degradation.perspective ?? 0;
  if (p > 0) {
    // A trapezoid: each horizontal strip is drawn narrower towards the top, as a camera tilted back sees it.
    const strips = 60;
    for (let s = 0; s < strips; s++) {
      const sy = (s * h) / strips;
      const scale = 1 - p * (1 - s / strips);
      const dw = w * scale;
      ctx.drawImage(doc, 0, sy, w, h / strips + 1, -dw / 2, sy - h / 2, dw, h / strips + 1);
    }
  } else ctx.drawImage(doc, -w / 2, -h / 2);
  ctx.restore();

  if (degradation.glare) {
    const gx = out.width * (0.2 + rand() * 0.6);
    const g = ctx.createLinearGradient(gx - 90, 0, gx + 90, 0);
    g.addColorStop(0, 'rgba(255,255,255,0)');
    g.addColorStop(0.5, `rgba(255,255,255,${degradation.glareAlpha ?? 0.55})`);
    g.addColorStop(1, 'rgba(255,255,255,0)');
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, out.width, out.height);
  }
  if (degradation.shadow) {
    // A soft-edged shadow: everything on one side of a line through the zone darkened, with a blurred edge.
    const { angle, offset, depth } = degradation.shadow;
    const rad = (angle * Math.PI) / 180;
    const [cx, cy] = [out.width * offset, out.height * 0.8];
    const [nx, ny] = [Math.cos(rad), Math.sin(rad)];
    const g = ctx.createLinearGradient(cx - nx * 40, cy - ny * 40, cx + nx * 40, cy + ny * 40);
    g.addColorStop(0, 'rgba(0,0,0,0)');
    g.addColorStop(1, `rgba(20,15,10,${depth})`);
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, out.width, out.height);
  }
  let canvas = out;
  if (degradation.blur) {
    const blurred = createCanvas(out.width, out.height);
    const bctx = blurred.getContext('2d');
    bctx.filter = `blur(${degradation.blur}px)`;
    bctx.drawImage(out, 0, 0);
    canvas = blurred;
  }
  if (degradation.noise) {
    const c2 = canvas.getContext('2d');
    const img = c2.getImageData(0, 0, canvas.width, canvas.height);
    const d = img.data;
    for (let i = 0; i < d.length; i += 4) {
      const n = (rand() + rand() + rand() - 1.5) * 2 * degradation.noise;
      d[i] = Math.max(0, Math.min(255, d[i] + n));
      d[i + 1] = Math.max(0, Math.min(255, d[i + 1] + n));
      d[i + 2] = Math.max(0, Math.min(255, d[i + 2] + n));
    }
    c2.putImageData(img, 0, 0);
  }
  if (degradation.jpegQuality) return { bytes: await canvas.encode('jpeg', degradation.jpegQuality), contentType: 'image/jpeg', mrz };
  return { bytes: await canvas.encode('png'), contentType: 'image/png', mrz };
}

/**
 * A hand-held photo (the tuning set's `handheld` kind): 2-4 of a soft shadow across the zone, a thin print,
 * text lines above the zone, printed matter on the table, and a rotation up to 10°, over a light blur,
 * noise and JPEG. Built for tuning the locator and binarisation; independent of the held-out generator.
 */
export function handheldDegradation(rand: () => number): Degradation {
  const effects = ['shadow', 'thin', 'textAbove', 'busyTable', 'rotation'].sort(() => rand() - 0.5).slice(0, 2 + Math.floor(rand() * 3));
  return {
    blur: 0.3 + rand() * 0.8,
    noise: 4 + rand() * 8,
    rotateDegrees: (rand() * 2 - 1) * (effects.includes('rotation') ? 10 : 3),
    perspective: rand() * 0.05,
    jpegQuality: 50 + Math.floor(rand() * 30),
    ...(effects.includes('shadow') ? { shadow: { angle: rand() * 360, offset: 0.25 + rand() * 0.5, depth: 0.35 + rand() * 0.35 } } : {}),
    ...(effects.includes('thin') ? { thinPrint: 1 + rand() * 1.5 } : {}),
    ...(effects.includes('textAbove') ? { textAbove: 1 + Math.floor(rand() * 3) } : {}),
    ...(effects.includes('busyTable') ? { busyTable: true } : {}),
  };
}

/** The degradations of the evaluation's degraded set, drawn at random within the bounds. */
export function randomDegradation(rand: () => number): Degradation {
  return {
    blur: 0.5 + rand() * 1.0,
    noise: 6 + rand() * 10,
    rotateDegrees: (rand() * 2 - 1) * 5,
    perspective: rand() * 0.06,
    glare: rand() < 0.5,
    jpegQuality: 40,
  };
}
