/** Another character the OCR's recogniser weighed for a glyph, and its confidence in it (0..1). */
export type Alternative = { char: string; confidence: number };

/**
 * A character the OCR recognised, with its horizontal extent in the image, the OCR's confidence in it (0..1)
 * and, when the OCR gives them, the other characters it weighed there (strongest first, mrz-ocr.ts).
 */
export type Glyph = { text: string; x0: number; x1: number; confidence?: number; alternatives?: Alternative[] };

/**
 * One line as read: its characters and, position by position, how sure the OCR was of each (0..1; 0 for
 * unknown) and, when the OCR gives them, the other characters it weighed there (none for an unknown position).
 */
export type ReadLine = { text: string; confidences: number[]; alternatives?: Alternative[][] };

/** A position of the zone that the OCR read as more glyphs than the print can hold there: read, but not known. */
export const UNKNOWN = '?';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The text of one MRZ line from its glyphs, using the fixed pitch of the print (ICAO 9303: every character,
 * the filler `<` included, is 2.54 mm wide). The pitch is the median distance between neighbouring glyphs
 * (most neighbours are one position apart). Glyphs whose centres lie closer than 3/4 of the pitch form a
 * cluster, and each glyph of a cluster takes the position its distance from the cluster's first glyph
 * says; two glyphs in one position are a printed character the OCR split (`EC` for `E`, `0O` for `O`, `NV`
 * for `N`), written `UNKNOWN`; a gap of two pitches or more between glyphs is a printed character the OCR
 * did not see (a thin `I`), also `UNKNOWN`. So the line keeps its length, the other characters keep their positions,
 * and no reading claims a character it did not see. Each position keeps its glyph's confidence (an
 * unknown one has none).
 */
export function lineOfGlyphs(glyphs: Glyph[]): ReadLine {
  const conf = (g: Glyph) => g.confidence ?? 1;
  const withAlternatives = glyphs.some((g) => g.alternatives);
  const alternativesOf = (g: Glyph) => (g.text.length === 1 ? (g.alternatives ?? []) : []);
  const plain: ReadLine = {
    text: glyphs.map((g) => g.text).join(''),
    confidences: glyphs.flatMap((g) => [...g.text].map(() => conf(g))),
    ...(withAlternatives ? { alternatives: glyphs.flatMap((g) => [...g.text].map(() => alternativesOf(g))) } : {}),
  };
  const centres = glyphs.map((g) => (g.x0 + g.x1) / 2);
  const gaps = centres.slice(1).map((c, i) => c - centres[i]);
  if (gaps.length < 4) return plain;
  const pitch = median(gaps);
  if (!(pitch > 0)) return plain;
  let text = '';
  const confidences: number[] = [];
  const alternatives: Alternative[][] = [];
  let start = 0;
  for (let i = 1; i <= glyphs.length; i++) {
    if (i < glyphs.length && gaps[i - 1] < 0.75 * pitch) continue;
    const positions: Glyph[][] = [];
    for (let k = start; k < i; k++) (positions[Math.round((centres[k] - centres[start]) / pitch)] ??= []).push(glyphs[k]);
    for (const at of Array.from(positions)) {
      const known = at?.length === 1;
      text += known ? at[0].text : UNKNOWN;
      confidences.push(known ? conf(at[0]) : 0);
      alternatives.push(known ? alternativesOf(at[0]) : []);
    }
    // Every position of the zone is printed (the filler too), so a gap of two pitches or more before the
    // next glyph is a character the OCR did not see (a thin I): an unknown position, not a shorter line.
    if (i < glyphs.length) {
      // 1.75 pitches, not 1.5: a narrow glyph's box (I, 1) can sit off its cell's centre by a third of a pitch.
      const missing = Math.floor(gaps[i - 1] / pitch + 0.25) - 1;
      for (let m = 0; m < missing; m++) {
        text += UNKNOWN;
        confidences.push(0);
        alternatives.push([]);
      }
    }
    start = i;
  }
  return { text, confidences, ...(withAlternatives ? { alternatives } : {}) };
}

/** The text of `lineOfGlyphs`. */
export const lineTextOfGlyphs = (glyphs: Glyph[]): string => lineOfGlyphs(glyphs).text;
