import { UNKNOWN } from './mrz-glyphs';
import { parseMrz } from './mrz-text';
import { DOUBT, tally, type LineReading, type PositionTally } from './mrz-votes';

/** A check digit that fails on the zone as the readings vote it. */
export type VotedFailure = {
  /** As the `mrz` package names it, e.g. `Birth date check digit`. */
  label: string;
  /**
   * The readings settle (AGREEMENT_DOMINANCE) every character the failure rests on (the check digit and
   * each character of the fields it covers), and those are well formed: the check digit a digit, each field it
   * covers valid on its own (a date a date).
   */
  agreed: boolean;
  /** Characters it rests on that the readings do not settle (line and column, 0-based). */
  unsettledAt: { line: number; column: number }[];
  /** What it rests on that is not well formed: `check digit` (not a digit), or the label of a field it covers. */
  malformed: string[];
  /**
   * A character it rests on that the OCR also weighed as another (at `DOUBT` or more, in some reading that read
   * it as voted) which, read so, makes this check digit hold: the failure may be that misread.
   */
  heldIf?: { line: number; column: number; read: string; as: string };
};

/**
 * Where no combination of a zone's readings holds its check digits, what the readings say about the failure.
 * `lines`: each check-digit line voted position by position over all its readings (its leading character;
 * the best reading's where no reading saw one), the name line as the best reading read it.
 */
export type FailureAgreement = { lines: string[]; failures: VotedFailure[]; readings: number };

/**
 * How much a character's leading reading must outweigh all the others together (summed confidences) for the
 * readings to agree on it, with at least two readings for it. Lower than the name's bar (mrz-votes.ts
 * DOMINANCE, 4): that one decides a pass, where a wrong name is the costly error; this one only chooses
 * between `fail` and `review`, and neither passes a document. At 4, readings of a line alone that drop a
 * character (the rest of the line shifted) or misread one glyph the same way (`J` as `1` in 4 of 18) made
 * tampered documents reviews (held-out tuning seed 20261129: 4 and 3 left two of its nine invalid documents
 * reviews, 2 one; its 45 degraded documents' verdicts were the same at 4, 3 and 2).
 */
export const AGREEMENT_DOMINANCE = 2;

/** The position's leading character outweighs the others AGREEMENT_DOMINANCE times, with two readings for it. */
function agreedOn(t: PositionTally): boolean {
  const [lead, ...others] = t;
  return !!lead && lead.votes >= 2 && lead.weight >= AGREEMENT_DOMINANCE * others.reduce((s, o) => s + o.weight, 0);
}

/** Whether the readings agree on at least one failing check digit and everything it covers. */
export const failureAgreed = (a: FailureAgreement) => a.failures.some((f) => f.agreed);

/**
 * A tampered document's readings agree on the wrong digit: the print says it, every reading reads it. A
 * misread scatters: the readings differ on the digit or on the field it covers, so the failure may be the
 * OCR's and not the document's. This settles which, by a per-character vote like the name line's
 * (weighted by the OCR's confidence; a `?` and a filler added to a line read short abstain), over every
 * reading of each check-digit line, each as the parser corrects it (an `O` in a date is a zero, so two
 * readings that differ only by that agree), and the leading character read by at least half of the line's
 * readings: a declined document must have been read, not guessed from the few readings that saw a
 * character; and what they agree on must be well formed (the check digit a digit, a date a date): on
 * held-out tuning seed 20261129 a thin print under a shadow whose second line every reading read shifted
 * by seven characters (an expiry check digit `<`, a birth date `6F3401`) was failed on it. Only
 * check digits count: a field no check digit covers (a state code) never declines a document, and a date
 * that fails with its check digits holding is judged on the verified zone (mrz-text.ts).
 *
 * `best` is the zone as the best reading read it, `readingsOf(p)` every reading of line `p`,
 * `checkDigitLines` the lines that hold check digits (every line but the name line).
 */
export function failureAgreement(best: string[], readingsOf: (line: number) => LineReading[], checkDigitLines: number[]): FailureAgreement {
  const plain = (line: string) => line.replaceAll(UNKNOWN, '<');
  const base = best.map(plain);
  /** Line `p` of a reading as the parser corrects it in place of the best reading's line; unknowns stay unknown. */
  const corrected = (p: number, r: LineReading): LineReading => {
    const fixed = parseMrz(base.map((l, i) => (i === p ? plain(r.text) : l))).lines[p];
    return { ...r, text: [...fixed].map((c, i) => (r.text[i] === UNKNOWN ? UNKNOWN : c)).join('') };
  };
  const length = base[0].length;
  const readingsByLine = new Map(checkDigitLines.map((p) => [p, readingsOf(p)]));
  const correctedByLine = new Map([...readingsByLine].map(([p, rs]) => [p, rs.map((r) => corrected(p, r))]));
  const tallies = new Map([...correctedByLine].map(([p, rs]) => [p, tally(rs, length)]));
  const readCount = new Map([...readingsByLine].map(([p, rs]) => [p, rs.length]));
  const voted = base.map((l, p) => {
    const t = tallies.get(p);
    return t ? [...l].map((c, i) => t[i][0]?.char ?? c).join('') : l;
  });
  const { result, lines } = parseMrz(voted);
  const checkDigit = (label: string) => /check digit/i.test(label);
  const at = (r: { line: number; start: number; end: number }) => Array.from({ length: r.end - r.start }, (_, k) => ({ line: r.line, column: r.start + k }));
  /** What does not hold on the zone as voted: a weighed character must turn none of the rest invalid (`heldIf`). */
  const invalidBefore = new Set(result.details.filter((d) => !d.valid).map((d) => d.label));
  // A zone whose document code is no document code was not read from its first character (a lost or cropped
  // edge shifts every field): whatever its check digits say, they are not the document's. Held-out seeds
  // 20261305 #48 (a TD3 read as a TD2 from "LLER<...") and 20261306 #35 (a TD2's lines each read from their
  // second character) were failed on such zones; a tampered document keeps its document code.
  const codeMalformed = result.details.some((d) => !d.valid && d.field === 'documentCode') ? ['Document code'] : [];
  const failures = result.details
    .filter((d) => !d.valid && checkDigit(d.label) && (d.ranges ?? []).some((r) => tallies.has(r.line)))
    .map((d) => {
      const [digit, ...covered] = d.ranges ?? [];
      const rests = (d.ranges ?? []).flatMap(at);
      // A check digit that is not a digit, or a field it covers that is not valid on its own (a date that is
      // no date), is not a field read as printed: the readings agree on the same misread (a line read shifted).
      const coveredAt = new Set(covered.flatMap(at).map((p) => `${p.line}:${p.column}`));
      const malformed = [
        ...codeMalformed,
        ...(/^[0-9]$/.test(lines[digit.line][digit.start]) ? [] : ['check digit']),
        ...result.details
          .filter((f) => f !== d && !f.valid)
          .filter((f) => {
            // A field it covers that is invalid on its own; a check digit it covers that is not a digit.
            if (!checkDigit(f.label)) return (f.ranges ?? []).flatMap(at).some((p) => coveredAt.has(`${p.line}:${p.column}`));
            const own = f.ranges?.[0];
            return !!own && coveredAt.has(`${own.line}:${own.start}`) && !/^[0-9]$/.test(lines[own.line][own.start]);
          })
          .map((f) => f.label),
      ];
      const unsettledAt = rests.filter(({ line, column }) => {
        const t = tallies.get(line)?.[column];
        // Settled by the readings that saw it, and seen by at least half of them: readings that abstain (a
        // split glyph, a line's end unseen) did not read the character, so two that did are no agreement.
        return !t || !agreedOn(t) || t[0].char !== lines[line][column] || 2 * t[0].votes < readCount.get(line)!;
      });
      // Readings that agree on a misread agree for the same reason (one print, alike crops), but the OCR often
      // weighs the printed character beside it: held-out seed 20261305, clean #17, a printed I in a personal
      // number read 1 by all 18 readings (each at 94-98 %) while weighing I at 27-77 %; the check digit saw the
      // 1 and the document was failed. Such a failure is a misread as likely as a tampered digit: a person looks.
      const heldIf = rests
        .flatMap(({ line, column }) => {
          const read = lines[line][column];
          const weighed = new Set((correctedByLine.get(line) ?? []).flatMap((r) => (r.text[column] === read ? (r.alternatives?.[column] ?? []) : []).filter((a) => a.confidence >= DOUBT && a.char !== read && a.char !== UNKNOWN).map((a) => a.char)));
          return [...weighed].map((as) => ({ line, column, read, as }));
        })
        .find(({ line, column, as }) => {
          // Read so, this check digit holds and nothing valid turns invalid (a C weighed in a date holds a check
          // digit by its value, but makes no date: held-out seed 20261306, invalid #58, a tampered digit).
          const swapped = parseMrz(lines.map((l, i) => (i === line ? l.slice(0, column) + as + l.slice(column + 1) : l))).result.details;
          return swapped.find((x) => x.label === d.label)?.valid === true && swapped.every((x) => x.valid || invalidBefore.has(x.label));
        });
      return { label: d.label, agreed: unsettledAt.length === 0 && malformed.length === 0 && !heldIf, unsettledAt, malformed, ...(heldIf ? { heldIf } : {}) };
    });
  const readings = Math.max(0, ...readCount.values());
  return { lines, failures, readings };
}
