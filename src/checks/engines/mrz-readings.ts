import type { MrzFormat } from '../check-providers';
import { failureAgreement, type FailureAgreement } from './mrz-failure-agreement';
import { UNKNOWN, type ReadLine } from './mrz-glyphs';
import { normaliseMrzLines, parseMrz } from './mrz-text';
import { doubtsAt, settled, tally, tallyAt, voteLine, type LineReading } from './mrz-votes';

/** One OCR reading of the zone: its text and, when the OCR gives them, its lines' character confidences. */
export type ZoneReading = { text: string; lines?: ReadLine[] };

/**
 * What several independent OCR readings of one MRZ establish together:
 * - `verified`: a choice of lines on which every check digit holds, each check-digit line read by at least
 *   one reading; the name line (which no check digit covers) voted character by character over every
 *   reading of it (mrz-votes.ts). `nameSettled` when every position of it is settled and it is a
 *   well-formed name field; `nameVotes` readings read it exactly as voted; `nameReadings` are the distinct
 *   name lines read, most read first (what a reviewer is shown when the name is not settled);
 *   `conflicts` are other versions of a check-digit line on which the check digits still hold (a check digit
 *   cannot tell characters whose values differ by 10 apart: S, I and 8; G, Q and 6; 5, F, P and Z...)
 *   where the readings' votes do not settle the difference;
 * - `unverified`: no choice validates; `lines` is the reading with the most valid check digits; `agreement`
 *   what the readings, voted character by character, say about the failure (mrz-failure-agreement.ts: a
 *   failing check digit every reading agrees on, or a misread on which they scatter);
 * - `none`: no reading has MRZ-shaped lines.
 */
export type MrzConsensus =
  | {
      kind: 'verified';
      format: MrzFormat;
      lines: string[];
      nameVotes: number;
      nameSettled: boolean;
      nameReadings: { line: string; readings: number }[];
      conflicts: string[];
    }
  | { kind: 'unverified'; format: MrzFormat; lines: string[]; agreement: FailureAgreement; zeroOrO?: ZeroOrO }
  | { kind: 'none' };

/**
 * Check digits that hold only if some `O` read in an alphanumeric field (a document number, optional data)
 * is a zero, or some `0` a letter O: in the OCR-B builds documents are printed in the two are drawn almost
 * alike (the same width, the zero at most a few per cent taller), so the OCR's choice between them is no
 * evidence, and a person reading the document could not tell them apart either. Only the one assignment of
 * the ambiguous positions on which every check digit holds is kept, and only when exactly one does; it is
 * never a pass (`lines` is what the check digits say, `positions` the characters read otherwise), since a
 * misread elsewhere in the field can be made to hold by such a change 1 time in 10.
 */
export type ZeroOrO = { lines: string[]; positions: { line: number; column: number; read: string; field: string }[] };

/** The line holding the names: the first of TD2 and TD3, the third of TD1. */
export const nameLineIndex = (format: MrzFormat) => (format === 'TD1' ? 2 : 0);
/** Where the name field starts in the name line (after the document code and issuing state of TD2 and TD3). */
export const nameFieldStart = (format: MrzFormat) => (format === 'TD1' ? 0 : 5);

/** Digits read in a name line that are no reading of a letter: all but 0 (OCR-B's 0 and O are drawn almost alike). */
const NOT_A_LETTER = /[1-9]/;

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
 * digit holds (a misread character in one reading is outvoted by another reading's line); the name line is
 * voted character by character over the zone readings and `nameLines` (readings of the name line alone),
 * and the caller passes the document only when that vote is settled and no conflict is left.
 */
export function combineReadings(readings: (string | ZoneReading)[], nameLines: LineReading[] = [], linesAlone: LineReading[][] = []): MrzConsensus {
  const shaped = readings.map((r) => (typeof r === 'string' ? normaliseMrzLines(r) : normaliseMrzLines(r.text, r.lines))).filter((s) => s !== undefined);
  if (shaped.length === 0) return { kind: 'none' };
  const format = byVotes(shaped.map((s) => s.format))[0].value as MrzFormat;
  const ofFormat = shaped.filter((s) => s.format === format);
  const zones = ofFormat.map((s) => s.lines);
  const nameIndex = nameLineIndex(format);
  const lineCount = zones[0].length;
  const length = zones[0][0].length;
  const positions = Array.from({ length: lineCount }, (_, i) => i).filter((i) => i !== nameIndex);
  // A line with an unknown position (a split character, mrz-glyphs.ts) is never chosen as a check-digit
  // line; in the votes, its unknown positions abstain.
  const known = (line: string) => !line.includes(UNKNOWN);
  const candidates = positions.map((i) => byVotes([...zones.map((r) => r[i]), ...(linesAlone[i] ?? []).map((l) => l.text)].filter((l) => known(l) && l.length === length)).map((c) => c.value));
  /** Line `p` as zone reading `k` read it. */
  const lineOf = (k: number, p: number): LineReading => {
    const s = ofFormat[k];
    return { text: s.lines[p], confidences: s.confidences[p], ...(s.alternatives[p] ? { alternatives: s.alternatives[p] } : {}), ...(s.padFrom[p] !== undefined ? { padFrom: s.padFrom[p] } : {}) };
  };
  /** Every reading of line `p`: the zone readings' and, when given, the line read alone (`linesAlone[p]`). */
  const readingsOf = (p: number): LineReading[] => [...ofFormat.map((_, k) => lineOf(k, p)), ...(linesAlone[p] ?? []).filter((l) => l.text.length === length)];
  const nameOf = (k: number): LineReading => lineOf(k, nameIndex);
  const allNames = [...ofFormat.map((_, k) => nameOf(k)), ...nameLines.filter((n) => n.text.length === length)];
  const anyName = allNames.find((n) => known(n.text))?.text ?? allNames[0].text.replaceAll(UNKNOWN, '<');

  const assemble = (chosen: string[], name: string) => {
    const lines = new Array<string>(lineCount);
    positions.forEach((p, k) => (lines[p] = chosen[k]));
    lines[nameIndex] = name;
    return lines;
  };
  /** The lines as the parser corrects them when every check digit holds on them; undefined otherwise (one parse). */
  const heldAs = (lines: string[]): string[] | undefined => {
    const parsed = parseMrz(lines);
    return parsed.result.details.every((d) => d.valid || d.line === nameIndex) ? parsed.lines : undefined;
  };
  const digitsHold = (lines: string[]) => heldAs(lines) !== undefined;
  /**
   * Check-digit lines of `lines` changed in one character that the check digits cannot rule out (a field no
   * check digit covers, or look-alikes whose values differ by 10: G and Q, S and 8, 6 and G...) and the
   * readings do not either: a character the readings of that line dispute where the votes do not settle it,
   * or one the OCR itself weighed where it read the character kept (`doubtsAt`). Each is a conflict, which a
   * person resolves. Seed 20261302: a 6 read G by one reading of two (the other shifted after it by a split
   * glyph, so its line held no check digit) passed with the G; a thin 6 read G by all three, each time with 6
   * as its second choice, passed too.
   */
  const unconfirmedVersions = (lines: string[]): string[] => {
    const out = new Set<string>();
    for (const p of positions) {
      const ofLine = readingsOf(p);
      const line = lines[p];
      // Only readings that read a neighbour as kept speak for a position: a reading shifted by a character it
      // split or lost (a cropped line read from its third character) disputes every position by accident
      // (held-out seed 20261303, degraded #52: 9 readings shifted by two put a K under a 0, which its check
      // digit cannot tell apart). Two misreads side by side still count, by the neighbour on the other side.
      const alignedAt = (i: number) => ofLine.filter((r) => (i > 0 && r.text[i - 1] === line[i - 1]) || (i + 1 < length && r.text[i + 1] === line[i + 1]));
      [...line].forEach((kept, i) => {
        const aligned = alignedAt(i);
        const t = tallyAt(aligned, i);
        const disputed = settled(t) && t[0].char === kept ? [] : t.map((c) => c.char);
        for (const char of new Set([...disputed, ...doubtsAt(aligned, i, kept)])) {
          if (char === kept || char === UNKNOWN) continue;
          const swapped = lines.map((l, n) => (n === p ? l.slice(0, i) + char + l.slice(i + 1) : l));
          const held = heldAs(swapped);
          if (held && held[p] !== line) out.add(swapped[p]);
        }
      });
    }
    return [...out];
  };
  /** The verified consensus on check-digit lines `chosen`, whose check digits hold. */
  const settle = (chosen: string[]): MrzConsensus => {
    const { lines } = parseMrz(assemble(chosen, anyName));
    // Names are voted as corrected by the parser, so two readings that differ only by such a correction
    // agree; unknown positions stay unknown. Only a 0 is corrected (to O: OCR-B draws O and 0 almost alike,
    // so a 0 read in a name is an O read). Any other digit stays as read: it is no reading of a letter, and
    // the parser's look-alike (6 as G, 5 as S, 8 as B...) is a guess no check digit confirms, so it votes
    // for no letter and against the letters read there (mrz-votes.ts). Seed 20261301: a sharp OCR-B S read
    // as 6 by 8 of 10 readings, corrected to G, settled the name with G, and the document passed.
    const correct = (name: string) => {
      const fixed = parseMrz(assemble(chosen, name.replaceAll(UNKNOWN, '<'))).lines[nameIndex];
      return [...fixed].map((c, i) => (name[i] === UNKNOWN || NOT_A_LETTER.test(name[i]) ? name[i] : c)).join('');
    };
    // Where a reading's line was read short, the fillers added to it abstain (padFrom): they were not read.
    const names = allNames.map((n) => ({ text: correct(n.text), confidences: n.confidences, ...(n.alternatives ? { alternatives: n.alternatives } : {}), ...(n.padFrom !== undefined ? { padFrom: n.padFrom } : {}) }));
    const vote = voteLine(names, length, nameFieldStart(format));
    const chosenLines = [...lines.slice(0, nameIndex), vote.line, ...lines.slice(nameIndex + 1)];
    const conflicts: string[] = [];
    // Another version of a check-digit line on which the check digits still hold is a conflict, unless the
    // votes of every reading of that line settle each position where it differs from the chosen one.
    positions.forEach((p, k) => {
      const ofLine = readingsOf(p);
      const votes = tally(ofLine, length);
      const filled = (line: string) => [...line].map((c, i) => (c === UNKNOWN ? chosenLines[p][i] : c)).join('');
      for (const alternative of new Set([...candidates[k], ...ofLine.map((l) => l.text).filter((l) => !known(l)).map(filled)])) {
        if (alternative === chosen[k]) continue;
        const swapped = chosenLines.map((l, i) => (i === p ? alternative : l));
        const held = heldAs(swapped);
        if (!held || held[p] === chosenLines[p]) continue;
        const differing = [...alternative].flatMap((c, i) => (c !== chosenLines[p][i] ? [i] : []));
        if (!differing.every((i) => votes[i][0]?.char === chosenLines[p][i] && settled(votes[i]))) conflicts.push(alternative);
      }
    });
    for (const version of unconfirmedVersions(chosenLines)) if (!conflicts.includes(version)) conflicts.push(version);
    const distinct = byVotes(names.map((n) => n.text)).map(({ value, votes }) => ({ line: value, readings: votes }));
    return { kind: 'verified', format, lines: chosenLines, nameVotes: vote.agreeing, nameSettled: vote.settled, nameReadings: distinct, conflicts };
  };
  for (const chosen of product(candidates, 256)) if (digitsHold(parseMrz(assemble(chosen, anyName)).lines)) return settle(chosen);
  // No line as one reading read it holds: each check-digit line voted character by character over all its
  // readings (a misread in one reading, a character another never saw, outvoted position by position). A
  // voted line is only a candidate: it is kept only where every check digit holds on it, never a guess.
  const voted = positions.map((p) => votedCheckDigitLine(readingsOf(p), length));
  const withVoted = candidates.map((c, k) => (voted[k] && !c.includes(voted[k]) ? [voted[k], ...c] : c));
  if (voted.some((v, k) => v && !candidates[k].includes(v)))
    for (const chosen of product(withVoted, 256)) {
      // A character the votes leave disputed is not confirmed by the check digits: settle() keeps it as a conflict.
      if (digitsHold(parseMrz(assemble(chosen, anyName)).lines)) return settle(chosen);
    }
  const validDigits = (lines: string[]) => parseMrz(lines).result.details.filter((d) => d.valid).length;
  const best = [...zones].sort((a, b) => Number(b.every(known)) - Number(a.every(known)) || validDigits(b) - validDigits(a))[0];
  const zeroOrO = zeroOrOChoice(product(candidates, 64).map((chosen) => assemble(chosen, anyName)), nameIndex);
  return { kind: 'unverified', format, lines: best, agreement: failureAgreement(best, readingsOf, positions), ...(zeroOrO ? { zeroOrO } : {}) };
}

/**
 * A check-digit line voted position by position over its readings (mrz-votes.ts tally: weighed by the OCR's
 * confidence; a split glyph and a filler added to a line read short abstain); undefined when some position
 * no reading saw or two characters tie there, or when fewer than two readings read it at all.
 */
export function votedCheckDigitLine(readings: LineReading[], length: number): string | undefined {
  if (readings.length < 2) return undefined;
  // A tie is no vote: which of two characters the line holds would then be the check digit's choice.
  const chars = tally(readings, length).map(([lead, next]) => (lead && (!next || (lead.votes > next.votes && lead.weight > next.weight)) ? lead.char : undefined));
  return chars.every((c) => c !== undefined) ? chars.join('') : undefined;
}

/** Fields whose characters may be letters or digits, so neither O nor 0 is corrected by the parser. */
const ALPHANUMERIC = new Set(['documentNumber', 'personalNumber', 'optional1', 'optional2', 'optional']);

/**
 * Letters a check digit cannot tell from the digit OCR-B draws them like: G is worth 16 and S 28, so a 6 read
 * as G or an 8 read as S leaves every check digit holding.
 */
const CHECK_BLIND_LETTERS = new Set(['G', 'S']);

/**
 * The check-digit lines of `lines` (a zone whose check digits hold) that hold a check-blind letter
 * (`CHECK_BLIND_LETTERS`) in an alphanumeric field, such as a document number: where every zone reading read
 * that letter, only another look at the line can dispute it. Held-out seed 20261302, clean #7: a thin 6 in a
 * TD1 document number was read G, surely, by every zone reading, and the document passed with a wrong number;
 * the line read alone weighed the 6.
 */
export function checkBlindLetterLines(lines: string[], nameIndex: number): number[] {
  const out = new Set<number>();
  for (const d of parseMrz(lines).result.details) {
    if (!d.field || !ALPHANUMERIC.has(d.field)) continue;
    for (const range of d.ranges ?? [])
      if (range.line !== nameIndex && [...lines[range.line].slice(range.start, range.end)].some((c) => CHECK_BLIND_LETTERS.has(c))) out.add(range.line);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * `ZeroOrO` over the combinations of lines read: each `O`/`0` of an alphanumeric field of a check-digit line
 * (at most 4 per combination) taken both ways; kept when exactly one resulting zone (over every
 * combination) has every check digit hold.
 */
export function zeroOrOChoice(zones: string[][], nameIndex: number): ZeroOrO | undefined {
  const holding = new Map<string, ZeroOrO>();
  for (const zone of zones) {
    if (zone.some((l) => l.includes(UNKNOWN))) continue;
    const { result } = parseMrz(zone);
    const spots: { line: number; column: number; field: string }[] = [];
    for (const d of result.details) {
      if (!d.field || !ALPHANUMERIC.has(d.field)) continue;
      const range = d.ranges?.[0];
      if (!range || range.line === nameIndex) continue;
      for (let c = range.start; c < range.end; c++) if (zone[range.line][c] === 'O' || zone[range.line][c] === '0') spots.push({ line: range.line, column: c, field: d.field });
    }
    if (spots.length === 0 || spots.length > 4) continue;
    for (let mask = 1; mask < 1 << spots.length; mask++) {
      const lines = zone.map((l) => l.split(''));
      const changed = spots.filter((_, i) => mask & (1 << i));
      for (const p of changed) lines[p.line][p.column] = zone[p.line][p.column] === 'O' ? '0' : 'O';
      const parsed = parseMrz(lines.map((l) => l.join('')));
      if (!parsed.result.details.every((d) => d.valid || d.line === nameIndex)) continue;
      // Keyed by the lines as the parser corrects them (a G read in a date is a 6): one zone read two ways.
      holding.set(parsed.lines.join('\n'), { lines: parsed.lines, positions: changed.map((p) => ({ ...p, read: zone[p.line][p.column] })) });
    }
  }
  return holding.size === 1 ? [...holding.values()][0] : undefined;
}
