import { UNKNOWN, type Alternative } from './mrz-glyphs';

/**
 * One reading of one MRZ line: its characters and the OCR's confidence in each (0..1), and when the OCR gives
 * them, the other characters it weighed at each position (mrz-ocr.ts). `padFrom`: where the fillers added to
 * a line read short start (mrz-text.ts); from there on the reading saw nothing, so it abstains.
 */
export type LineReading = { text: string; confidences: number[]; alternatives?: Alternative[][]; padFrom?: number };

/**
 * When a reading counts as torn between the character it read and another: the recogniser was itself unsure
 * of its choice (its confidence in it under `SURE`) and weighed the other at `DOUBT` or more (0..1). Votes
 * cannot settle such a doubt: the readings of one zone share its print, so where one reading nearly took a
 * glyph for another, the others read it alike for the same reason (seed 20261302: a thin 6 read G by every
 * reading, once at 85 % with 6 at 35 %). Only both together: a printed G read at 98 % still had 6 weighed at
 * 33-44 % in 4 of 11 readings (held-out tuning seed 20261129, clean #2), so the second choice alone cannot
 * tell a torn glyph from a sure one. Where the check digits cannot tell the two apart either, a person decides.
 */
export const DOUBT = 0.3;
export const SURE = 0.9;

/** Characters some reading of `readings` that read `char` at `i` was torn with (see `DOUBT`; first seen first). */
export function doubtsAt(readings: LineReading[], i: number, char: string): string[] {
  const out = new Set<string>();
  for (const r of readings) {
    if (r.text[i] !== char || (r.confidences[i] ?? 1) >= SURE) continue;
    for (const a of r.alternatives?.[i] ?? []) if (a.confidence >= DOUBT && a.char !== char) out.add(a.char);
  }
  return [...out];
}

/** The characters read at one position, strongest first: how many readings read each, and their summed confidence. */
export type PositionTally = { char: string; votes: number; weight: number }[];

/**
 * How much a position's leading character must outweigh all the others together (summed confidences), with
 * at least two readings for it. Two readings that agree settle a position; a dissent needs four readings
 * against it at equal confidence (3 to 1 is not enough: in the tuning set three of four readings once read
 * `SANNE` as `GANNE`), fewer when the dissenting reading was itself unsure of the character.
 */
export const DOMINANCE = 4;

/** Per-position tally over readings of one line; `?` (a split glyph, mrz-glyphs.ts) and a filler added to a line read short abstain. */
export function tally(readings: LineReading[], length: number): PositionTally[] {
  return Array.from({ length }, (_, i) => tallyAt(readings, i));
}

/** `tally` at position `i` alone. */
export function tallyAt(readings: LineReading[], i: number): PositionTally {
  const by = new Map<string, { votes: number; weight: number }>();
  readings.forEach((r) => {
    const c = r.text[i];
    if (c === undefined || c === UNKNOWN || (r.padFrom !== undefined && i >= r.padFrom)) return;
    const t = by.get(c) ?? { votes: 0, weight: 0 };
    t.votes++;
    t.weight += Math.max(0, Math.min(1, r.confidences[i] ?? 1));
    by.set(c, t);
  });
  return [...by.entries()].map(([char, t]) => ({ char, ...t })).sort((a, b) => b.weight - a.weight || b.votes - a.votes);
}

/** True when the position's leading character is settled by the readings (see DOMINANCE). */
export function settled(t: PositionTally): boolean {
  const [lead, ...others] = t;
  if (!lead || lead.votes < 2) return false;
  const against = others.reduce((s, o) => s + o.weight, 0);
  return lead.weight >= DOMINANCE * against;
}

/**
 * The positions of a name field (ICAO 9303: primary identifier, `<<`, secondary identifiers, then filler to
 * the end) that its own structure says cannot be letters: anything after the filler has begun. The filler
 * begins at the second `<<` (the first separates the names), or where the secondary identifiers would start
 * with `<` (no given names). Digits are never part of a name. `start` is where the field starts in the line.
 */
export function structurallyImpossible(line: string, start: number): Set<number> {
  const out = new Set<number>();
  const field = line.slice(start);
  for (let i = 0; i < field.length; i++) if (/[0-9]/.test(field[i])) out.add(start + i);
  const filler = fillerStart(line, start);
  if (filler === undefined) return out;
  for (let i = filler; i < line.length; i++) if (/[A-Z0-9]/.test(line[i])) out.add(i);
  return out;
}

/** Where a name field's filler begins in `line` (the second `<<`, or a `<` where the given names would start); undefined if it has not. */
export function fillerStart(line: string, start: number): number | undefined {
  const field = line.slice(start);
  const sep = field.indexOf('<<');
  if (sep < 0) return undefined;
  const given = sep + 2;
  const filler = field[given] === '<' ? given : field.indexOf('<<', given);
  return filler < 0 ? undefined : start + filler;
}

/** A name field that ICAO 9303 allows: starts with a letter, letters and fillers only, and no letter once the filler has begun. */
export function structurallyValid(line: string, start: number): boolean {
  const field = line.slice(start);
  return /^[A-Z][A-Z<]*$/.test(field) && structurallyImpossible(line, start).size === 0;
}

export type LineVote = {
  /** The leading character at each position (`<` where no reading saw one). */
  line: string;
  /** Every position settled, and (for a name line) the result a well-formed name field. */
  settled: boolean;
  /** Positions not settled. */
  unsettledAt: number[];
  /** Readings that read the whole line exactly as voted. */
  agreeing: number;
};

/**
 * Votes one line across readings, character by character, each reading's vote weighted by its confidence
 * in the character. For a name line (`nameStart` given), each reading is first read by its own structure
 * (`asNameField`), and the result must be a well-formed name field.
 */
export function voteLine(readings: LineReading[], length: number, nameStart?: number): LineVote {
  const shaped = nameStart === undefined ? readings : realignMergedGlyphs(readings, length).map((r) => asNameField(r, nameStart));
  const tallies = tally(shaped, length);
  const line = tallies.map((t) => t[0]?.char ?? '<').join('');
  // A filler voted inside a name (up to just after its last letter) where some reading read a letter, and read
  // both neighbours as voted (so not a reading shifted by a dropped character), is not settled by the vote:
  // glare, fading and thin print take strokes away far more often than they add them, and a K that loses its
  // stem is a `<` (tuning set, degraded #192: ERIKA read ERI<A by 5 of 6 readings, and passed).
  const lastLetter = nameStart === undefined ? -1 : Math.max(-1, ...[...line].map((c, i) => (/[A-Z]/.test(c) ? i : -1)));
  const aligned = (r: LineReading, i: number) => r.text[i - 1] === line[i - 1] && (i + 1 >= line.length || r.text[i + 1] === line[i + 1]);
  const letterLost = (i: number) =>
    nameStart !== undefined && i >= nameStart && i <= lastLetter + 1 && line[i] === '<' && shaped.some((r) => /[A-Z]/.test(r.text[i] ?? '') && aligned(r, i) && !(r.padFrom !== undefined && i >= r.padFrom));
  // A letter (or filler) of the name that the OCR weighed against another letter or a filler where it read it:
  // no check digit covers a name, so the doubt is not settled by votes (seed 20261302: a one-letter given
  // name J read I by both readings, J the second choice at 65 %).
  const doubted = (i: number) => nameStart !== undefined && i >= nameStart && i <= lastLetter + 1 && doubtsAt(shaped, i, line[i]).some((c) => /[A-Z<]/.test(c));
  const unsettledAt = tallies.flatMap((t, i) => (settled(t) && !letterLost(i) && !doubted(i) ? [] : [i]));
  const wellFormed = nameStart === undefined || structurallyValid(line, nameStart);
  return { line, settled: unsettledAt.length === 0 && wellFormed, unsettledAt, agreeing: readings.filter((r) => r.text === line).length };
}

/**
 * Readings read short whose unknown glyph (`?`, mrz-glyphs.ts) may stand for two characters the OCR merged
 * (`VI` of a name that fills its field, `<S` between two names): the rest of such a reading sits one position
 * early, so it votes against every character after the merge. Each is moved one position on after its first
 * unknown (a second unknown there, one added filler fewer) when that agrees with more of the full readings
 * (no unknown, not read short) than it did where it was. Held-out seed 20261305, clean #12: 3 of 18
 * readings merged `<S` and 6 merged `VI`, and the name, read right by the other 9, went to review.
 */
export function realignMergedGlyphs(readings: LineReading[], length: number): LineReading[] {
  const full = readings.filter((r) => r.padFrom === undefined && !r.text.includes(UNKNOWN) && r.text.length === length);
  if (full.length === 0) return readings;
  const leading = Array.from({ length }, (_, i) => tallyAt(full, i)[0]?.char);
  const agreement = (text: string, from: number, to: number) => {
    let n = 0;
    for (let i = from; i < to; i++) if (text[i] === leading[i]) n++;
    return n;
  };
  return readings.map((r) => {
    const k = r.text.indexOf(UNKNOWN);
    if (r.padFrom === undefined || k < 0 || k >= r.padFrom || r.padFrom >= length) return r;
    const text = r.text.slice(0, k + 1) + UNKNOWN + r.text.slice(k + 1, length - 1);
    if (agreement(text, k + 2, r.padFrom + 1) <= agreement(r.text, k + 1, r.padFrom)) return r;
    const insert = <T>(xs: T[], x: T) => [...xs.slice(0, k + 1), x, ...xs.slice(k + 1, length - 1)];
    return {
      text,
      confidences: insert(r.confidences, 0),
      ...(r.alternatives ? { alternatives: insert(r.alternatives, []) } : {}),
      padFrom: r.padFrom + 1,
    };
  });
}

/**
 * A name-line reading as its own structure reads it: a letter after its filler has begun is a filler the OCR
 * misread (a mark, a speck), so it votes for `<` at half its confidence; a digit, which no name holds, votes
 * as itself at half its confidence: for no letter, but against the letters other readings read there (the
 * reading saw a glyph it took for no letter, so a letter a few readings read is not settled by the others'
 * silence), and a line a digit leads is no well-formed name, never settled.
 */
function asNameField(r: LineReading, start: number): LineReading {
  // Fillers added after the reading's own filler had begun are what the field holds there (no letter follows
  // the filler), so they vote like fillers read; added before it, they abstain.
  const filler = r.padFrom === undefined ? undefined : fillerStart(r.text.slice(0, r.padFrom), start);
  const padFrom = filler !== undefined && filler <= r.padFrom! ? undefined : r.padFrom;
  const impossible = structurallyImpossible(r.text, start);
  return {
    ...(r.alternatives ? { alternatives: r.alternatives } : {}),
    text: impossible.size === 0 ? r.text : [...r.text].map((c, i) => (!impossible.has(i) || /[0-9]/.test(c) ? c : '<')).join(''),
    confidences: impossible.size === 0 ? r.confidences : r.confidences.map((w, i) => (impossible.has(i) ? w / 2 : w)),
    ...(padFrom !== undefined ? { padFrom } : {}),
  };
}
