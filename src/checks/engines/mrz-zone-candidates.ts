import type { Canvas, Image } from '@napi-rs/canvas';
import { boxBlur, darkMask, flattened, greyOf, rotateCanvas, toCanvas } from './image-tools';

/** Wider than a stroke of the MRZ at the analysis width (characters ~15-25 px high), narrower than a shadow's edge. */
const FLATTEN_RADIUS = 6;
import { componentLines, stackedGroups } from './mrz-component-lines';
import { cropZone, mrzGroup, skewCandidates, textLines, WORK_WIDTH, type LocatedMrz, type TextLine } from './mrz-locator';

/** Characters per line of each format (ICAO 9303): TD1 30 (3 lines), TD2 36 and TD3 44 (2 lines). */
const LINE_CHARS: { chars: number; lines: number }[] = [
  { chars: 30, lines: 3 },
  { chars: 36, lines: 2 },
  { chars: 44, lines: 2 },
];

/**
 * The character pitch of a text line and how regular it is: the autocorrelation of the line's column ink
 * profile peaks at the pitch of a monospaced print (every MRZ cell holds a glyph, the filler `<` included,
 * so the profile repeats every 2.54 mm over the whole line), and stays low for proportional text.
 */
export function linePitch(mask: Uint8Array, width: number, line: TextLine): { pitch: number; regularity: number } {
  const w = line.right - line.left + 1;
  const h = line.bottom - line.top + 1;
  if (w < 4 * h) return { pitch: 0, regularity: 0 };
  const profile = new Float64Array(w);
  for (let y = line.top; y <= line.bottom; y++) for (let x = 0; x < w; x++) profile[x] += mask[y * width + line.left + x];
  const mean = profile.reduce((s, v) => s + v, 0) / w;
  for (let x = 0; x < w; x++) profile[x] -= mean;
  const energy = profile.reduce((s, v) => s + v * v, 0) || 1;
  const from = Math.max(3, Math.floor(0.35 * h));
  const to = Math.min(Math.ceil(1.6 * h), Math.floor(w / 4));
  const ac = (lag: number) => {
    let s = 0;
    for (let x = 0; x + lag < w; x++) s += profile[x] * profile[x + lag];
    return s / energy;
  };
  const values = new Map<number, number>();
  for (let lag = from - 1; lag <= to + 1; lag++) values.set(lag, ac(lag));
  let best = { pitch: 0, regularity: 0 };
  for (let lag = from; lag <= to; lag++) {
    const [a, b, c] = [values.get(lag - 1)!, values.get(lag)!, values.get(lag + 1)!];
    if (b <= best.regularity || b < a || b < c) continue;
    // The peak between integer lags (a parabola through three points): the pitch is seldom a whole pixel.
    const shift = a - 2 * b + c === 0 ? 0 : (0.5 * (a - c)) / (a - 2 * b + c);
    best = { pitch: lag + Math.max(-0.5, Math.min(0.5, shift)), regularity: b };
  }
  return best;
}

/** How far a line of `n` characters is from every MRZ line length, relatively (0 = exactly one of them). */
const lengthMisfit = (n: number, lines: number) => Math.min(...LINE_CHARS.filter((f) => f.lines === lines).map((f) => Math.abs(n - f.chars) / f.chars));

/**
 * How much a group of lines looks like an MRZ, by what only an MRZ has: each line monospaced (a regular
 * column profile), as many pitches long as a format's lines (30 with three lines, 36 or 44 with two), the
 * lines as long as each other and starting at the same place (every line is filled to its end with `<`).
 * Higher is more MRZ-like; below 0 it is not one.
 */
export function zoneScore(mask: Uint8Array, width: number, group: TextLine[]): number {
  return zoneMeasure(mask, width, group).score;
}

/** `zoneScore` with the pitch and the line length (in characters) of the format it fits best. */
export function zoneMeasure(mask: Uint8Array, width: number, group: TextLine[]): { score: number; pitch: number; chars: number; misfit: number } {
  const measures = group.map((l) => linePitch(mask, width, l));
  const pitch = measures.map((m) => m.pitch).sort((a, b) => a - b)[Math.floor(measures.length / 2)];
  if (!pitch) return { score: -1, pitch: 0, chars: 0, misfit: 1 };
  const regularity = measures.reduce((s, m) => s + m.regularity, 0) / measures.length;
  const widths = group.map((l) => l.right - l.left).sort((a, b) => a - b);
  // The longest line (for three, the middle one: one line's extent can be cut short or run long): a line's
  // last glyph ends about half a pitch short of its cell.
  const measured = (widths[1] + pitch * 0.4) / pitch;
  const misfit = lengthMisfit(measured, group.length);
  const spread = (widths[widths.length - 1] - widths[0]) / pitch;
  const chars = LINE_CHARS.filter((f) => f.lines === group.length).sort((a, b) => Math.abs(a.chars - measured) - Math.abs(b.chars - measured))[0].chars;
  return { score: regularity - 2 * misfit - 0.01 * spread, pitch, chars, misfit };
}

/** Every group of 2 or 3 consecutive lines of similar height, closely spaced and overlapping: the zones an MRZ could be. */
export function lineGroups(lines: TextLine[]): TextLine[][] {
  const height = (l: TextLine) => l.bottom - l.top + 1;
  const fits = (a: TextLine, b: TextLine) =>
    height(a) / height(b) < 1.7 &&
    height(b) / height(a) < 1.7 &&
    b.top - a.bottom <= 1.6 * Math.max(height(a), height(b)) &&
    Math.min(a.right, b.right) - Math.max(a.left, b.left) >= 0.6 * Math.min(a.right - a.left, b.right - b.left);
  const groups: TextLine[][] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!fits(lines[i], lines[i + 1])) continue;
    groups.push([lines[i + 1], lines[i]]);
    if (i + 2 < lines.length && fits(lines[i + 1], lines[i + 2])) groups.push([lines[i + 2], lines[i + 1], lines[i]]);
  }
  return groups;
}

/**
 * The zone, able to give itself cut wider: to each format's line length for its number of lines (30 for
 * three, 36 and 44 for two) that is at least 3 characters longer than the lines measured, from the left edge.
 */
function withWider(zone: LocatedMrz, straight: Canvas, group: TextLine[], angle: number, pitch: number): LocatedMrz {
  if (!pitch) return zone;
  const width = Math.max(...group.map((l) => l.right - l.left));
  const lengths = LINE_CHARS.filter((f) => f.lines === group.length && f.chars * pitch >= width + 3 * pitch).map((f) => f.chars);
  return lengths.length ? { ...zone, wider: () => lengths.map((chars) => cropZone(straight, group, angle, chars * pitch, true)) } : zone;
}

/** Two groups of as many lines on the same rows and columns (within a third of a line height): one zone found twice. */
const similarZone = (a: TextLine[], b: TextLine[]) => {
  if (a.length !== b.length) return false;
  const tol = (l: TextLine) => Math.max(2, (l.bottom - l.top + 1) / 3);
  return a.every((l, i) => {
    const t = tol(l);
    return Math.abs(l.top - b[i].top) <= t && Math.abs(l.bottom - b[i].bottom) <= t && Math.abs(l.left - b[i].left) <= 3 * t && Math.abs(l.right - b[i].right) <= 3 * t;
  });
};

/**
 * The zones worth reading, best first, at most `limit`: the locator's own choice (mrz-locator.ts, the lowest
 * group of wide lines) at the sharpest deskew angle, then the most MRZ-like groups of lines (`zoneScore`) at
 * that angle and at the next sharpest angles (printed matter around the document, a newspaper on the table,
 * can be straighter than the document itself). The reader reads them in order until one reads as an MRZ.
 */
export function mrzZoneCandidates(image: Canvas | Image, limit = 4): (() => LocatedMrz)[] {
  const work = toCanvas(image, WORK_WIDTH);
  const mask = darkMask(boxBlur(greyOf(work), 1));
  const angles = skewCandidates(mask, work.width, work.height, 3);
  const scored: { score: number; make: () => LocatedMrz }[] = [];
  let first: (() => LocatedMrz) | undefined;
  for (const [n, angle] of angles.entries()) {
    const straight = angle === 0 ? work : rotateCanvas(work, -angle);
    // The paper's level evened out first: in a shadow the print's contrast drops below the local
    // threshold's floor, and the zone's lines would end where the shadow begins.
    const m2 = darkMask(boxBlur(flattened(greyOf(straight), FLATTEN_RADIUS), 1));
    const lines = textLines(m2, straight.width, straight.height);
    const own = n === 0 ? mrzGroup(lines) : undefined;
    // A zone whose lines measure a little fewer pitches than its format's lines (a shadow's edge or glare
    // fading the fillers at one end) is widened to the format's length, half on each side; one far from
    // every format (two lines of a TD1) is left as found.
    const widthOf = (group: TextLine[]) => {
      const m = zoneMeasure(m2, straight.width, group);
      return m.score > 0 && m.misfit < 0.12 ? m.chars * m.pitch : undefined;
    };
    if (own) {
      const width = widthOf(own);
      const pitch = zoneMeasure(m2, straight.width, own).pitch;
      first = () => withWider(cropZone(straight, own, angle, width), straight, own, angle, pitch);
    }
    const seen: TextLine[][] = own ? [own] : [];
    const add = (group: TextLine[]) => {
      // A zone found both as bands of rows and as chains of glyphs is read once; a band that does not
      // measure like an MRZ (print beside it merged into its rows) does not hide the chains on its rows.
      if (seen.some((g) => similarZone(g, group))) return;
      const m = zoneMeasure(m2, straight.width, group);
      if (m.score > 0) seen.push(group);
      if (m.score > 0) scored.push({ score: m.score + (n === 0 ? 0.05 : 0), make: () => withWider(cropZone(straight, group, angle, m.misfit < 0.12 ? m.chars * m.pitch : undefined), straight, group, angle, m.pitch) });
    };
    for (const group of lineGroups(lines)) add(group);
    // The same lines found as chains of glyphs: print beside the document (a newspaper, a form) that shares
    // the zone's rows merges bands of rows, not chains (mrz-component-lines.ts).
    for (const group of stackedGroups(componentLines(m2, straight.width, straight.height))) add(group);
  }
  scored.sort((a, b) => b.score - a.score);
  // Cropped only when the reader probes them: most photos need the first.
  return [...(first ? [first] : []), ...scored.map((s) => s.make)].slice(0, limit);
}
