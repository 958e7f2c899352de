import type { MrzFormat } from '../check-providers';
import { UNKNOWN } from './mrz-glyphs';
import { normaliseMrzLines, parseMrz } from './mrz-text';

/**
 * What several independent OCR readings of one MRZ establish together:
 * - `verified`: a choice of lines, each read by at least one reading, on which every check digit holds;
 *   `nameVotes` readings read the name line (not covered by any check digit) exactly as chosen (0 when every
 *   reading has an unknown position in it);
 *   `conflicts` are the lines other readings read differently where the difference is not caught by a
 *   check digit: another name line, or a line with check digits that still hold with it (a check digit
 *   cannot tell characters whose values differ by 10 apart: S, I and 8; G, Q and 6; 5, F, P and Z...);
 * - `unverified`: no choice validates; `lines` is the reading with the most valid check digits;
 * - `none`: no reading has MRZ-shaped lines.
 */
export type MrzConsensus =
  | { kind: 'verified'; format: MrzFormat; lines: string[]; nameVotes: number; conflicts: string[] }
  | { kind: 'unverified'; format: MrzFormat; lines: string[] }
  | { kind: 'none' };

/** The line holding the names: the first of TD2 and TD3, the third of TD1. */
export const nameLineIndex = (format: MrzFormat) => (format === 'TD1' ? 2 : 0);

/** Distinct values, most frequent first (first seen on ties). */
function byVotes(values: string[]): { value: string; votes: number }[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].map(([value, votes]) => ({ value, votes })).sort((a, b) => b.votes - a.votes);
}

function product<T>(lists: T[][], limit: number): T[][] {
  let out: T[][] = [[]];
  for (const list of lists) out = out.flatMap((prefix) => list.map((x) => [...prefix, x])).slice(0, limit);
  return out;
}

/**
 * Combines OCR readings of one MRZ line by line. Lines with check digits are chosen so that every check
 * digit holds (a misread character in one reading is outvoted by another reading's line); the name line
 * is chosen by votes, and the caller passes the document only when at least two readings agree on it.
 */
export function combineReadings(texts: string[]): MrzConsensus {
  const shaped = texts.map((t) => normaliseMrzLines(t)).filter((s) => s !== undefined);
  if (shaped.length === 0) return { kind: 'none' };
  const format = byVotes(shaped.map((s) => s.format))[0].value as MrzFormat;
  const readings = shaped.filter((s) => s.format === format).map((s) => s.lines);
  const nameIndex = nameLineIndex(format);
  const lineCount = readings[0].length;
  const positions = Array.from({ length: lineCount }, (_, i) => i).filter((i) => i !== nameIndex);
  // A line with an unknown position (a split character, mrz-glyphs.ts) is never chosen: check-digit lines
  // come from readings that read every position, and a name line with unknowns only has to agree with the
  // chosen one where it is known.
  const known = (line: string) => !line.includes(UNKNOWN);
  const candidates = positions.map((i) => byVotes(readings.map((r) => r[i]).filter(known)).map((c) => c.value));
  const nameReadings = readings.map((r) => r[nameIndex]);
  const knownNames = nameReadings.filter(known);
  const names = byVotes(knownNames.length ? knownNames : nameReadings.map((n) => n.replaceAll(UNKNOWN, '<')));

  const assemble = (chosen: string[], name: string) => {
    const lines = new Array<string>(lineCount);
    positions.forEach((p, k) => (lines[p] = chosen[k]));
    lines[nameIndex] = name;
    return lines;
  };
  const digitsHold = (lines: string[]) => parseMrz(lines).result.details.every((d) => d.valid || d.line === nameIndex);
  /** The verified consensus on check-digit lines `chosen`, whose check digits hold. */
  const settle = (chosen: string[]): MrzConsensus => {
    const { lines } = parseMrz(assemble(chosen, names[0].value));
    // Votes are counted on the name line as corrected by the parser (a 0 in a name reads as O), so two
    // readings that differ only by such a correction agree.
    const correct = (name: string) => parseMrz(assemble(chosen, name)).lines[nameIndex];
    const corrected = knownNames.length ? byVotes(knownNames.map(correct)) : [{ value: names[0].value, votes: 0 }];
    const best = corrected[0];
    const tie = corrected.length > 1 && corrected[1].votes === best.votes;
    const chosenLines = [...lines.slice(0, nameIndex), best.value, ...lines.slice(nameIndex + 1)];
    const conflicts = corrected.slice(1).map((c) => c.value);
    const agreesWhereKnown = (name: string) => [...name].every((c, i) => c === UNKNOWN || c === best.value[i]);
    for (const partial of new Set(nameReadings.filter((n) => !known(n)).map(correct))) if (!agreesWhereKnown(partial)) conflicts.push(partial);
    // A line with unknown positions is compared with the chosen one as if it had read them the same way.
    const filled = (line: string, p: number) => [...line].map((c, i) => (c === UNKNOWN ? chosenLines[p][i] : c)).join('');
    positions.forEach((p, k) => {
      const partials = readings.map((r) => r[p]).filter((l) => !known(l)).map((l) => filled(l, p));
      for (const alternative of new Set([...candidates[k], ...partials])) {
        if (alternative === chosen[k]) continue;
        const swapped = chosenLines.map((l, i) => (i === p ? alternative : l));
        if (digitsHold(swapped) && parseMrz(swapped).lines[p] !== chosenLines[p]) conflicts.push(alternative);
      }
    });
    return { kind: 'verified', format, lines: chosenLines, nameVotes: tie ? 1 : best.votes, conflicts };
  };
  for (const chosen of product(candidates, 256)) if (digitsHold(parseMrz(assemble(chosen, names[0].value)).lines)) return settle(chosen);
  const validDigits = (lines: string[]) => parseMrz(lines).result.details.filter((d) => d.valid).length;
  const best = [...readings].sort((a, b) => Number(b.every(known)) - Number(a.every(known)) || validDigits(b) - validDigits(a))[0];
  return { kind: 'unverified', format, lines: best };
}
