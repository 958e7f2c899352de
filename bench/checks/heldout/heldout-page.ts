/**
 * HELD-OUT EVALUATION ONLY (never used to tune the reader; see heldout-set.ts): the printed page of a
 * held-out document. The page is an SVG (pastel gradients, guilloche rosettes and wave bands, microprint,
 * labels, a portrait box or, on a TD1 back, lines of text above the zone) rasterised by one of two
 * renderers: Skia's SVG module (@napi-rs/canvas) or resvg (@resvg/resvg-js, a separate Rust rasteriser).
 * The MRZ is a layer of its own, rasterised by the same renderer in one of three OCR-B builds
 * (assets/fonts/README.md) and thickened or thinned by grey-level dilation or erosion of its coverage
 * (print weight), then inked onto the page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createCanvas, GlobalFonts, loadImage } from '@napi-rs/canvas';
import { Resvg } from '@resvg/resvg-js';
import type { MrzFormat } from '../../../src/checks/check-providers';
import { seededRandom } from '../mrz-lines';
import type { HeldoutDocument, MrzFont, Renderer } from './heldout-set';
import { type Raster } from './raster';

/** Document sizes in millimetres (ICAO 9303) and the MRZ pitch of 2.54 mm. */
const SIZE_MM: Record<MrzFormat, [number, number]> = { TD1: [85.6, 53.98], TD2: [105, 74], TD3: [125, 88] };
export const PAGE_PX_PER_MM = 10;
const PITCH_MM = 2.54;

/** A file of the project's assets/fonts, found from bench/ or dist/bench/ (the nearest folder up that has it). */
const assets = (...p: string[]) => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'assets', 'fonts', ...p);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`assets/fonts/${p.join('/')} not found above ${__dirname}`);
};
const FONT_FILES: Record<MrzFont, { file: string; family: string }> = {
  'OCRB-debian': { file: assets('OCRB.otf'), family: 'OCR B' },
  'OCRB-sharp-debian': { file: assets('heldout', 'OCRBS.otf'), family: 'OCR B S' },
  'OCRB7-bwip': { file: assets('heldout', 'OCRB7.ttf'), family: 'OCRB' },
};
let skiaFonts = false;
function registerSkiaFonts() {
  if (skiaFonts) return;
  for (const { file, family } of Object.values(FONT_FILES)) if (!GlobalFonts.registerFromPath(file, family)) throw new Error(`font not found: ${file}`);
  skiaFonts = true;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Rasterises an SVG to RGBA with the chosen renderer. */
async function rasterise(svg: string, renderer: Renderer, width: number, height: number): Promise<Raster> {
  if (renderer === 'resvg') {
    const out = new Resvg(svg, { font: { fontFiles: Object.values(FONT_FILES).map((f) => f.file), loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render();
    return { width: out.width, height: out.height, data: new Uint8ClampedArray(out.pixels) };
  }
  registerSkiaFonts();
  const img = await loadImage(Buffer.from(svg));
  const c = createCanvas(width, height);
  c.getContext('2d').drawImage(img, 0, 0, width, height);
  return { width, height, data: new Uint8ClampedArray(c.getContext('2d').getImageData(0, 0, width, height).data) };
}

/** A guilloche rosette (hypotrochoid) as an SVG path. */
function rosette(cx: number, cy: number, R: number, r: number, d: number, turns: number): string {
  const pts: string[] = [];
  const steps = 1400;
  for (let i = 0; i <= steps; i++) {
    const t = (i / steps) * Math.PI * 2 * turns;
    const x = cx + (R - r) * Math.cos(t) + d * Math.cos(((R - r) / r) * t);
    const y = cy + (R - r) * Math.sin(t) - d * Math.sin(((R - r) / r) * t);
    pts.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  }
  return `M${pts.join('L')}`;
}

/** An SVG colour from hue, saturation and lightness; `a` < 1 adds an opacity attribute for `what` (fill or stroke). */
function hsl(h: number, s: number, l: number, a = 1, what: 'fill' | 'stroke' | 'stop' = 'fill'): string {
  const [S, L] = [s / 100, l / 100];
  const k = (n: number) => (n + h / 30) % 12;
  const f = (n: number) => L - S * Math.min(L, 1 - L) * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  const hex = '#' + [0, 8, 4].map((n) => Math.round(f(n) * 255).toString(16).padStart(2, '0')).join('');
  return a < 1 ? `${hex}" ${what}-opacity="${a.toFixed(2)}` : hex;
}

/** Where the zone sits on the page, in page pixels: its box and each line's baseline. */
export type ZoneLayout = { left: number; top: number; right: number; bottom: number; pitch: number; baselines: number[]; fontPx: number };

function zoneLayout(doc: HeldoutDocument, w: number, h: number, rand: () => number): ZoneLayout {
  const pitch = PITCH_MM * PAGE_PX_PER_MM * (0.97 + rand() * 0.04);
  const chars = doc.lines[0].length;
  const lineGap = pitch * (1.55 + rand() * 0.3);
  const fontPx = pitch * (1.32 + rand() * 0.22);
  const left = (w - chars * pitch) / 2 + (rand() - 0.5) * pitch * 0.8;
  const bottomMargin = h * (0.035 + rand() * 0.03);
  const baselines = doc.lines.map((_, i) => h - bottomMargin - (doc.lines.length - 1 - i) * lineGap);
  return { left, right: left + chars * pitch, top: baselines[0] - fontPx * 0.75, bottom: baselines[baselines.length - 1] + fontPx * 0.1, pitch, baselines, fontPx };
}

/** The page without its MRZ. */
function pageSvg(doc: HeldoutDocument, w: number, h: number, zone: ZoneLayout, rand: () => number): string {
  const hue = rand() * 360;
  const parts: string[] = [];
  parts.push(
    `<defs><linearGradient id="g" x1="0" y1="0" x2="${rand().toFixed(2)}" y2="1"><stop offset="0" stop-color="${hsl(hue, 35, 90)}"/><stop offset="1" stop-color="${hsl(hue + 40 + rand() * 60, 30, 86)}"/></linearGradient></defs>`,
    `<rect width="${w}" height="${h}" rx="${PAGE_PX_PER_MM * 3}" fill="url(#g)"/>`,
  );
  // Guilloche: rosettes and wave bands in two or three inks, faint, some of it running under the zone.
  for (let k = 0; k < 2 + Math.floor(rand() * 3); k++) {
    const R = h * (0.25 + rand() * 0.35);
    parts.push(`<path d="${rosette(w * (0.2 + rand() * 0.6), h * (0.2 + rand() * 0.6), R, R * (0.1 + rand() * 0.25), R * (0.2 + rand() * 0.4), 7 + Math.floor(rand() * 6))}" fill="none" stroke="${hsl(hue + rand() * 120, 45, 55, 0.18 + rand() * 0.2, 'stroke')}" stroke-width="${(0.6 + rand()).toFixed(1)}"/>`);
  }
  const waves = 10 + Math.floor(rand() * 20);
  const amp = h * (0.01 + rand() * 0.03);
  const period = w / (2 + rand() * 6);
  for (let i = 0; i < waves; i++) {
    const y0 = (i / waves) * h;
    let d = `M0,${y0.toFixed(1)}`;
    for (let x = 0; x <= w; x += 8) d += `L${x},${(y0 + amp * Math.sin((x / period) * Math.PI * 2 + i * 0.4)).toFixed(1)}`;
    parts.push(`<path d="${d}" fill="none" stroke="${hsl(hue + 180, 30, 60, 0.1 + rand() * 0.12, 'stroke')}" stroke-width="0.8"/>`);
  }
  const sans = rand() < 0.5 ? 'DejaVu Sans' : 'Liberation Sans';
  const ink = hsl(220 + rand() * 30, 40, 18 + rand() * 10);
  const label = (x: number, y: number, text: string, size: number, weight = 'normal') =>
    parts.push(`<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-family="${sans}" font-size="${size.toFixed(1)}" font-weight="${weight}" fill="${ink}">${esc(text)}</text>`);
  const small = PAGE_PX_PER_MM * (1.6 + rand() * 0.5);
  const big = PAGE_PX_PER_MM * (2.6 + rand() * 0.6);
  const f = doc.fields;
  const td1Back = doc.format === 'TD1';
  if (!td1Back) {
    // Portrait box and the visual zone's labelled fields.
    const pw = w * 0.27;
    parts.push(`<rect x="${(w * 0.04).toFixed(1)}" y="${(h * 0.16).toFixed(1)}" width="${pw.toFixed(1)}" height="${(pw * 1.28).toFixed(1)}" fill="${hsl(hue, 8, 70 + rand() * 15)}"/>`);
    parts.push(`<ellipse cx="${(w * 0.04 + pw / 2).toFixed(1)}" cy="${(h * 0.16 + pw * 0.55).toFixed(1)}" rx="${(pw * 0.3).toFixed(1)}" ry="${(pw * 0.38).toFixed(1)}" fill="${hsl(30, 25, 45 + rand() * 20)}"/>`);
    label(w * 0.04, h * 0.1, doc.format === 'TD3' ? 'PASSPORT / PASSEPORT / PASAPORTE' : 'IDENTITY CARD / CARTE D’IDENTITÉ', big, 'bold');
    const x = w * 0.36;
    const rows: [string, string][] = [
      ['Surname / Nom', doc.names.surname],
      ['Given names / Prénoms', doc.names.givenNames],
      ['Nationality / Nationalité', f.nationality],
      ['Date of birth / Date de naissance', f.dateOfBirth],
      ['Sex / Sexe', f.sex],
      ['Date of expiry / Date d’expiration', f.expiryDate],
      ['Document no. / N° du document', f.documentNumber],
    ];
    const avail = zone.top - h * 0.16;
    const step = avail / rows.length;
    rows.forEach(([l, v], i) => {
      label(x, h * 0.16 + i * step + small, l, small * 0.8);
      label(x, h * 0.16 + i * step + small + big * 0.95, v, big * 0.85);
    });
  } else {
    // A card's back: address, authority and remarks above the zone, sometimes a line as wide as the zone.
    const lines = [
      `ADDRESS / ADRESSE: ${Math.floor(rand() * 200) + 1} ${['RUE DES LILAS', 'HAUPTSTRASSE', 'CALLE MAYOR', 'OAK AVENUE'][Math.floor(rand() * 4)]}`,
      `AUTHORITY / AUTORITÉ: ${['MINISTRY OF INTERIOR', 'CITY HALL', 'POLICE DEPARTMENT'][Math.floor(rand() * 3)]}`,
      `HEIGHT ${150 + Math.floor(rand() * 50)} CM   EYES ${['BROWN', 'BLUE', 'GREEN'][Math.floor(rand() * 3)]}   PLACE OF BIRTH ${['LISBOA', 'WIEN', 'BRNO', 'OSLO'][Math.floor(rand() * 4)]}`,
    ];
    const n = 2 + Math.floor(rand() * 2);
    const gap = big * 1.15;
    for (let i = 0; i < n; i++) label(w * 0.05, zone.top - gap * (n - i) - PAGE_PX_PER_MM * (1 + rand() * 2), lines[i], big * 0.75);
    if (rand() < 0.5) {
      // Microprint just above the zone, as wide as it.
      const micro = 'SECURITY<'.repeat(40);
      parts.push(`<text x="${zone.left.toFixed(1)}" y="${(zone.top - PAGE_PX_PER_MM * 1.2).toFixed(1)}" font-family="${sans}" font-size="${(PAGE_PX_PER_MM * 1.1).toFixed(1)}" fill="${ink}" fill-opacity="0.5" textLength="${(zone.right - zone.left).toFixed(1)}">${esc(micro.slice(0, 70))}</text>`);
    }
    // A signature scribble.
    let d = `M${(w * 0.6).toFixed(1)},${(h * 0.2).toFixed(1)}`;
    for (let i = 0; i < 12; i++) d += ` q${(rand() * 40 - 10).toFixed(1)},${(rand() * 60 - 30).toFixed(1)} ${(15 + rand() * 20).toFixed(1)},${(rand() * 20 - 10).toFixed(1)}`;
    parts.push(`<path d="${d}" fill="none" stroke="${ink}" stroke-width="2"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${parts.join('')}</svg>`;
}

/** The zone alone, black on transparent, each character at its fixed pitch. */
function zoneSvg(doc: HeldoutDocument, w: number, h: number, zone: ZoneLayout): string {
  const { family } = FONT_FILES[doc.font];
  const texts = doc.lines.map((line, i) => {
    const xs = [...line].map((_, c) => (zone.left + c * zone.pitch + zone.pitch * 0.12).toFixed(1)).join(' ');
    return `<text x="${xs}" y="${zone.baselines[i].toFixed(1)}" font-family="${family}" font-size="${zone.fontPx.toFixed(1)}" fill="#000">${esc(line)}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${texts.join('')}</svg>`;
}

/** Grey-level dilation (`radius` > 0) or erosion (< 0) of a coverage map over a 3x3 cross, |radius| times. */
export function morph(alpha: Uint8ClampedArray, w: number, h: number, radius: number): Uint8ClampedArray {
  let a = alpha;
  for (let k = 0; k < Math.abs(radius); k++) {
    const out = new Uint8ClampedArray(a.length);
    const pick = radius > 0 ? Math.max : Math.min;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        out[i] = pick(a[i], a[x > 0 ? i - 1 : i], a[x < w - 1 ? i + 1 : i], a[y > 0 ? i - w : i], a[y < h - 1 ? i + w : i]);
      }
    a = out;
  }
  return a;
}

/** The printed page as RGBA, and where its zone lies. */
export async function renderHeldoutPage(doc: HeldoutDocument): Promise<{ page: Raster; zone: ZoneLayout }> {
  const rand = seededRandom(doc.seed);
  const [wmm, hmm] = SIZE_MM[doc.format];
  const w = Math.round(wmm * PAGE_PX_PER_MM);
  const h = Math.round(hmm * PAGE_PX_PER_MM);
  const zone = zoneLayout(doc, w, h, rand);
  const page = await rasterise(pageSvg(doc, w, h, zone, rand), doc.renderer, w, h);
  const layer = await rasterise(zoneSvg(doc, w, h, zone), doc.renderer, w, h);
  let coverage: Uint8ClampedArray = new Uint8ClampedArray(w * h);
  for (let i = 0; i < w * h; i++) coverage[i] = layer.data[4 * i + 3];
  coverage = morph(coverage, w, h, doc.weight === 'bold' ? 1 : doc.weight === 'thin' ? -1 : 0);
  // Ink: near black, dark grey or dark blue, not always full strength (a worn laser print).
  const ink = [[18, 18, 22], [40, 40, 46], [22, 28, 60]][Math.floor(rand() * 3)];
  const strength = 0.82 + rand() * 0.18;
  const d = page.data;
  for (let i = 0; i < w * h; i++) {
    const a = (coverage[i] / 255) * strength;
    if (a === 0) continue;
    for (let c = 0; c < 3; c++) d[4 * i + c] = d[4 * i + c] * (1 - a) + ink[c] * a;
  }
  return { page, zone };
}
