/** A character the OCR recognised, with its horizontal extent in the image. */
export type Glyph = { text: string; x0: number; x1: number };

/** A position of the zone that the OCR read as more glyphs than the print can hold there: read, but not known. */
export const UNKNOWN = '?';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The text of one MRZ line from its glyphs, using the fixed pitch of the print (ICAO 9303: every character,
 * the filler `<` included, is 2.54 mm wide). The pitch is the median distance between neighbouring glyphs
 * (most neighbours are one position apart). Glyphs whose centres lie closer than 3/4 of the pitch form a
 * cluster, and each glyph of a cluster takes the position its distance from the cluster's first glyph
 * says; two glyphs in one position are a printed character the OCR split (`EC` for `E`, `0O` for `O`, `NV`
 * for `N`), written `UNKNOWN`. So the line keeps its length, the other characters keep their positions,
 * and no reading claims a character it did not see.
 */
export function lineTextOfGlyphs(glyphs: Glyph[]): string {
  const plain = glyphs.map((g) => g.text).join('');
  const centres = glyphs.map((g) => (g.x0 + g.x1) / 2);
  const gaps = centres.slice(1).map((c, i) => c - centres[i]);
  if (gaps.length < 4) return plain;
  const pitch = median(gaps);
  if (!(pitch > 0)) return plain;
  let out = '';
  let start = 0;
  for (let i = 1; i <= glyphs.length; i++) {
    if (i < glyphs.length && gaps[i - 1] < 0.75 * pitch) continue;
    const positions: string[][] = [];
    for (let k = start; k < i; k++) (positions[Math.round((centres[k] - centres[start]) / pitch)] ??= []).push(glyphs[k].text);
    out += Array.from(positions, (texts) => (texts?.length === 1 ? texts[0] : UNKNOWN)).join('');
    start = i;
  }
  return out;
}
