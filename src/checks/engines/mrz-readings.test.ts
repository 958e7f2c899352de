import { buildMrz, randomFields, seededRandom } from '../../../bench/checks/mrz-lines';
import type { MrzFormat } from '../check-providers';
import { failureAgreed } from './mrz-failure-agreement';
import { checkBlindLetterLines, combineReadings, votedCheckDigitLine, zeroOrOChoice } from './mrz-readings';
import { normaliseMrzLines } from './mrz-text';

const now = new Date('2026-11-23T12:00:00Z');
const zone = (format: MrzFormat, seed = 1) => buildMrz(randomFields(seededRandom(seed), format, now));
/** The zone with one character replaced, as an OCR misread. */
const misread = (lines: string[], line: number, column: number, by: string) =>
  lines.map((l, i) => (i === line ? l.slice(0, column) + by + l.slice(column + 1) : l));
/** A character whose MRZ value differs from c's by 1 or 25, never by a multiple of 10, so a check digit sees it. */
const differentFrom = (c: string) => (c === '<' ? '1' : /\d/.test(c) ? String((Number(c) + 1) % 10) : c === 'Z' ? 'A' : String.fromCharCode(c.charCodeAt(0) + 1));

describe('combineReadings (independent OCR readings of one zone)', () => {
  it.each(['TD1', 'TD2', 'TD3'] as const)('a %s misread in a check-digit line of one reading is outvoted by another reading whose check digits hold', (format) => {
    for (let seed = 1; seed <= 20; seed++) {
      const truth = zone(format, seed);
      const digitLine = 1;
      const bad = misread(truth, digitLine, 4, differentFrom(truth[digitLine][4]));
      if (bad[digitLine] === truth[digitLine]) continue;
      const c = combineReadings([bad.join('\n'), truth.join('\n')]);
      expect(c).toMatchObject({ kind: 'verified', format, lines: truth, nameVotes: 2, nameSettled: true, conflicts: [] });
    }
  });

  it('settles a name that fills its field when some readings read the line short: the fillers added to them were not read, and do not vote', () => {
    const [first, second] = zone('TD3', 12);
    const full = [first.slice(0, 5) + 'FERREIRA<DOS<SANTOS<<ANNE<SOPHIE<GENEVI', second];
    // Held-out seed 20261305, clean #12: the last two letters merged into one unknown glyph in 6 of 18 readings.
    const short = [full[0].slice(0, 42) + '?', full[1]];
    const c = combineReadings([full, short, full, short].map((z) => z.join('\n')));
    expect(c).toMatchObject({ kind: 'verified', lines: full, nameSettled: true, conflicts: [] });
  });

  it('settles a name some readings read with two characters merged into one unknown glyph: the rest of such a reading is moved back into place', () => {
    const [first, second] = zone('TD3', 12);
    const full = [first.slice(0, 5) + 'FERREIRA<DOS<SANTOS<<ANNE<SOPHIE<GENEVI', second];
    // Seed 20261305, clean #12: `<S` read as one glyph, so everything after it sat one position early.
    const merged = [full[0].slice(0, 17) + '?' + full[0].slice(19), full[1]];
    const c = combineReadings([full, merged, full, merged, full].map((z) => z.join('\n')));
    expect(c).toMatchObject({ kind: 'verified', lines: full, nameSettled: true, conflicts: [] });
    // A reading with an unknown that moved nothing into place stays where it was: a different name is still a dispute.
    const other = [full[0].slice(0, 17) + '?' + 'X' + full[0].slice(19), full[1]];
    const d = combineReadings([full, other, full, other].map((z) => z.join('\n')));
    expect(d).toMatchObject({ kind: 'verified', nameSettled: false });
  });

  it('counts the readings that read the name line the same, and leaves a 2 to 1 name unsettled, naming both readings', () => {
    const truth = zone('TD3', 7);
    const g = misread(truth, 0, 6, differentFrom(truth[0][6]));
    const c = combineReadings([truth.join('\n'), g.join('\n'), truth.join('\n')]);
    expect(c).toMatchObject({ kind: 'verified', lines: truth, nameVotes: 2, nameSettled: false, conflicts: [] });
    expect(c.kind === 'verified' && c.nameReadings).toEqual([
      { line: truth[0], readings: 2 },
      { line: g[0], readings: 1 },
    ]);
  });

  it('votes the name line character by character: readings that each misread a different letter settle the printed name', () => {
    const truth = zone('TD3', 8);
    const readings = [6, 8, 10, -1, 12].map((col) => (col < 0 ? truth : misread(truth, 0, col, differentFrom(truth[0][col]))).join('\n'));
    expect(combineReadings(readings)).toMatchObject({ kind: 'verified', lines: truth, nameSettled: true, nameVotes: 1, conflicts: [] });
  });

  it('counts readings of the name line alone (other crops and binarisations) in the vote', () => {
    const truth = zone('TD1', 10);
    const g = misread(truth, 2, 2, differentFrom(truth[2][2]));
    const alone = (line: string) => ({ text: line, confidences: [...line].map(() => 1) });
    expect(combineReadings([truth.join('\n'), g.join('\n')])).toMatchObject({ kind: 'verified', nameSettled: false });
    expect(combineReadings([truth.join('\n'), g.join('\n')], [alone(truth[2]), alone(truth[2]), alone(truth[2])])).toMatchObject({ kind: 'verified', lines: truth, nameSettled: true });
  });

  it('settles a document number read G by four readings and Q by one (values 10 apart: the check digit cannot tell)', () => {
    const truth = buildMrz({ ...randomFields(seededRandom(5), 'TD3', now), documentNumber: 'XG4021K87' });
    const q = misread(truth, 1, 1, 'Q');
    const c = combineReadings([truth, q, truth, truth, truth].map((z) => z.join('\n')));
    expect(c).toMatchObject({ kind: 'verified', lines: truth, conflicts: [] });
  });

  it('reports as a conflict a document number read two ways that both satisfy its check digit (G and Q differ by 10)', () => {
    const truth = buildMrz({ ...randomFields(seededRandom(5), 'TD3', now), documentNumber: 'XG4021K87' });
    const q = misread(truth, 1, 1, 'Q');
    const c = combineReadings([truth.join('\n'), q.join('\n')]);
    expect(c).toMatchObject({ kind: 'verified' });
    expect(c.kind === 'verified' && c.conflicts).toEqual([expect.stringMatching(/^[XG|XQ]/)]);
  });

  it('does not settle a name letter most readings read as a digit: the parser\'s look-alike (6 as G) is no reading (seed 20261301)', () => {
    // A sharp OCR-B S read as 6 by 8 of 10 readings, as 5 by one and as S by one: the 6s, corrected to G by
    // the parser, used to settle KROLIKOWGKA, and a name that differs from the document passed.
    const truth = buildMrz({ ...randomFields(seededRandom(18), 'TD1', now), surname: 'KROLIKOWSKA', givenNames: 'MARIA DE LOS ANGELES' });
    const s = truth[2].indexOf('S');
    const as = (by: string) => misread(truth, 2, s, by);
    const alone = (line: string) => ({ text: line, confidences: [...line].map(() => 1) });
    const c = combineReadings([truth, as('6'), as('6')].map((z) => z.join('\n')), ['6', '6', '6', '5', '6', '6', '6'].map((by) => alone(as(by)[2])));
    expect(c).toMatchObject({ kind: 'verified', nameSettled: false });
    expect(c.kind === 'verified' && c.lines[2]).not.toBe(as('G')[2]);
  });

  it('still settles a name whose O every reading read as a zero (OCR-B draws the two alike)', () => {
    const truth = buildMrz({ ...randomFields(seededRandom(18), 'TD1', now), surname: 'KROLIKOWSKA', givenNames: 'MARIA' });
    const zero = misread(truth, 2, truth[2].indexOf('O'), '0');
    expect(combineReadings([zero, zero, zero].map((z) => z.join('\n')))).toMatchObject({ kind: 'verified', lines: truth, nameSettled: true, conflicts: [] });
  });

  it('leaves a tie of two name readings unsettled, so the reader cannot pass it', () => {
    const truth = zone('TD1', 9);
    const other = misread(truth, 2, 1, differentFrom(truth[2][1]));
    const c = combineReadings([other.join('\n'), truth.join('\n')]);
    expect(c).toMatchObject({ kind: 'verified', nameVotes: 1, nameSettled: false });
  });

  it('is unverified when two readings agree on a zone whose check digit fails (a tampered document)', () => {
    const truth = zone('TD3', 3);
    const tampered = misread(truth, 1, 19, String((Number(truth[1][19]) + 3) % 10));
    const c = combineReadings([tampered.join('\n'), tampered.join('\n')]);
    expect(c).toMatchObject({ kind: 'unverified', format: 'TD3', lines: tampered });
    expect(c).not.toHaveProperty('zeroOrO');
  });

  it('takes the line of a later reading whose check digits hold when earlier readings agree on the same misread (O for 0)', () => {
    const truth = buildMrz({ ...randomFields(seededRandom(6), 'TD2', now), documentNumber: '0RPTFSK1E' });
    const o = misread(truth, 1, 0, 'O');
    expect(combineReadings([o.join('\n'), o.join('\n')])).toMatchObject({ kind: 'unverified' });
    expect(combineReadings([o.join('\n'), o.join('\n'), truth.join('\n')])).toMatchObject({ kind: 'verified', lines: truth, nameVotes: 3, conflicts: [] });
  });

  describe('with unknown positions (a character the OCR split into two glyphs, mrz-glyphs.ts)', () => {
    const unknownAt = (lines: string[], line: number, column: number) => misread(lines, line, column, '?');

    it('does not count a name line that agrees with the chosen one wherever it is known as a disagreement', () => {
      const truth = zone('TD3', 13);
      const c = combineReadings([unknownAt(truth, 0, 8).join('\n'), truth.join('\n'), truth.join('\n')]);
      expect(c).toMatchObject({ kind: 'verified', lines: truth, nameVotes: 2, nameSettled: true, conflicts: [] });
    });

    it('does not count it as a vote either: one exact reading and one partial one are not two readings agreeing', () => {
      const truth = zone('TD2', 14);
      expect(combineReadings([unknownAt(truth, 0, 8).join('\n'), truth.join('\n')])).toMatchObject({ kind: 'verified', nameVotes: 1, nameSettled: false });
    });

    it('still counts a name line with unknowns where it is known: a different letter there keeps the name unsettled', () => {
      const truth = zone('TD1', 15);
      const other = unknownAt(misread(truth, 2, 1, differentFrom(truth[2][1])), 2, 4);
      const c = combineReadings([truth.join('\n'), other.join('\n'), truth.join('\n')]);
      expect(c).toMatchObject({ kind: 'verified', lines: truth, nameVotes: 2, nameSettled: false });
      expect(c.kind === 'verified' && c.nameReadings.map((n) => n.line)).toContain(other[2]);
    });

    it('never chooses a check-digit line with an unknown position, even when no other reading has that line', () => {
      const truth = zone('TD3', 16);
      const partial = unknownAt(truth, 1, 3);
      const c = combineReadings([partial.join('\n'), partial.join('\n')]);
      expect(c.kind).toBe('unverified');
      expect(c.kind === 'unverified' && c.lines[1]).toContain('?');
    });

    it('reports a check-digit line with unknowns whose known characters differ where no check digit can tell (G for Q)', () => {
      const truth = buildMrz({ ...randomFields(seededRandom(5), 'TD3', now), documentNumber: 'XG4021K87' });
      const q = unknownAt(misread(truth, 1, 1, 'Q'), 1, 30);
      const c = combineReadings([truth.join('\n'), q.join('\n'), truth.join('\n')]);
      expect(c).toMatchObject({ kind: 'verified', lines: truth });
      expect(c.kind === 'verified' && c.conflicts).toEqual([expect.stringMatching(/^XQ4021K87/)]);
    });

    it('settles no name when every reading has unknowns in it (each unknown position has one vote), so the reader cannot pass it', () => {
      const truth = zone('TD3', 17);
      const c = combineReadings([unknownAt(truth, 0, 8).join('\n'), unknownAt(truth, 0, 9).join('\n')]);
      expect(c).toMatchObject({ kind: 'verified', nameVotes: 0, nameSettled: false });
      expect(c.kind === 'verified' && c.lines[0]).not.toContain('?');
    });
  });

  describe('a check-digit line no reading reads right, voted character by character', () => {
    it.each(['TD1', 'TD2', 'TD3'] as const)('a %s line that three readings each misread at a different character is voted back, and its check digits hold', (format) => {
      for (let seed = 30; seed < 40; seed++) {
        const truth = zone(format, seed);
        // Characters in fields a check digit covers: dates (and TD2/TD3's document number).
        const readings = (format === 'TD1' ? [2, 4, 10] : [2, 14, 22]).map((column) => misread(truth, 1, column, differentFrom(truth[1][column])));
        if (readings.some((r) => r[1] === truth[1])) continue;
        expect(combineReadings(readings.slice(0, 2).map((r) => r.join('\n'))).kind).toBe('unverified');
        expect(combineReadings(readings.map((r) => r.join('\n')))).toMatchObject({ kind: 'verified', format, lines: truth, conflicts: [] });
      }
    });

    it("reads the line's last character from the one reading that saw it: fillers added to lines read short abstain", () => {
      const truth = zone('TD3', 41);
      const short = [truth[0], truth[1].slice(0, -1)].join('\n');
      const other = misread(truth, 1, 5, differentFrom(truth[1][5]));
      // Two readings missed the composite digit (the line filled with `<`), one misread the document number.
      expect(combineReadings([short, short, other.join('\n')])).toMatchObject({ kind: 'verified', lines: truth });
    });

    it('counts readings of the line alone (other crops and binarisations) in the vote', () => {
      const truth = zone('TD1', 42);
      const a = misread(truth, 0, 7, differentFrom(truth[0][7]));
      const b = misread(truth, 0, 9, differentFrom(truth[0][9]));
      const alone = (line: string) => ({ text: line, confidences: [...line].map(() => 0.9) });
      expect(combineReadings([a.join('\n'), a.join('\n'), b.join('\n')]).kind).toBe('unverified');
      const lineAlone = misread(truth, 0, 9, differentFrom(truth[0][9]))[0];
      expect(combineReadings([a.join('\n'), a.join('\n'), b.join('\n')], [], [[alone(lineAlone), alone(b[0]), alone(truth[0])]])).toMatchObject({ kind: 'verified', lines: truth });
    });

    it('keeps a voted line only when its check digits hold: readings that agree on a tampered digit stay unverified', () => {
      const truth = zone('TD3', 43);
      const tampered = misread(truth, 1, 19, String((Number(truth[1][19]) + 3) % 10));
      const readings = [tampered, misread(tampered, 1, 2, differentFrom(tampered[1][2])), misread(tampered, 1, 12, differentFrom(tampered[1][12]))];
      expect(combineReadings(readings.map((r) => r.join('\n')))).toMatchObject({ kind: 'unverified' });
    });

    it('keeps a voted line as a conflict where the readings dispute look-alikes its check digit cannot tell apart (G or Q, 2 to 1)', () => {
      const truth = buildMrz({ ...randomFields(seededRandom(5), 'TD3', now), documentNumber: 'XG4021K87' });
      const readings = [misread(truth, 1, 14, differentFrom(truth[1][14])), misread(truth, 1, 22, differentFrom(truth[1][22])), misread(misread(truth, 1, 1, 'Q'), 1, 2, '7')];
      const c = combineReadings(readings.map((r) => r.join('\n')));
      expect(c).toMatchObject({ kind: 'verified', lines: truth });
      expect(c.kind === 'verified' && c.conflicts).toEqual([expect.stringMatching(/^XQ4021K87/)]);
    });

    it('keeps as a conflict a look-alike one reading of two disputes, even where that reading\'s line holds no check digit (seed 20261302: 6 read G)', () => {
      const truth = ['IRUSAFERREIRA<DOS<SANTOS<<J<<<<<<<<<', 'YKTPHLK6H9VNM9902211F2903194913418<0'];
      const g = misread(truth, 1, 7, 'G');
      // The other reading saw the 6, then split the M into two glyphs: its line is shifted and holds no check digit.
      const shifted = [truth[0], truth[1].slice(0, 12) + '?' + truth[1].slice(14)];
      const c = combineReadings([g.join('\n'), shifted.join('\n')]);
      expect(c).toMatchObject({ kind: 'verified', lines: g });
      // (The shifted reading's last character, a 0 where the print has a filler, is a conflict too: both are worth 0.)
      expect(c.kind === 'verified' && c.conflicts).toContain(truth[1]);
    });

    it('takes no dispute from readings shifted along the line (a cropped line read from its third character; seed 20261303, #52)', () => {
      const truth = ['P<KORMCALLISTER<<KAI<<<<<<<<<<<<<<<<<<<<<<<<', 'PF72974106KOR7508284<270110539138066765<<<88'];
      const shifted = [truth[0], truth[1].slice(2)].join('\n');
      const alone = { text: truth[1], confidences: [...truth[1]].map(() => 0.95) };
      // Shifted by two, the readings put a K under the document number's 0 (K is worth 20: no check digit sees it).
      expect(combineReadings([shifted, shifted, shifted], [], [[], [alone]])).toMatchObject({ kind: 'verified', lines: truth, conflicts: [] });
    });

    it('keeps as a conflict a look-alike every reading read alike where the OCR, unsure of it, weighed the other one, and not where it barely did or was sure', () => {
      const truth = ['IRPRTZIELINSKI<<ELODIE<<<<<<<<<<<<<<', 'ZR87439115PRT9811072M3610251563A11<8'];
      const g = misread(truth, 1, 29, 'G');
      /** `lines` read with 0.95 confidence, but `own` at line 2, column 30, where `alternative` was weighed at `weight`. */
      const reading = (lines: string[], alternative: string, weight: number, own = 0.85) => ({
        text: lines.join('\n'),
        lines: lines.map((text, n) => ({
          text,
          confidences: [...text].map((_, i) => (n === 1 && i === 29 ? own : 0.95)),
          alternatives: [...text].map((_, i) => (n === 1 && i === 29 ? [{ char: alternative, confidence: weight }] : [])),
        })),
      });
      const torn = combineReadings([reading(g, '6', 0.02), reading(g, '6', 0.35), reading(g, '6', 0.02)]);
      expect(torn).toMatchObject({ kind: 'verified', lines: g });
      expect(torn.kind === 'verified' && torn.conflicts).toEqual([truth[1]]);
      expect(combineReadings([reading(g, '6', 0.02), reading(g, '6', 0.2), reading(g, '6', 0.02)])).toMatchObject({ kind: 'verified', lines: g, conflicts: [] });
      // Sure of its G (98 %), the OCR still weighs a 6 at 33-44 % where a G is printed (seed 20261129): no doubt.
      expect(combineReadings([reading(g, '6', 0.4, 0.98), reading(g, '6', 0.44, 0.98), reading(g, '6', 0.02)])).toMatchObject({ kind: 'verified', lines: g, conflicts: [] });
      // An alternative the check digits rule out (B is worth 11, G 16) is no doubt they leave open.
      expect(combineReadings([reading(g, 'B', 0.9), reading(g, 'B', 0.9)])).toMatchObject({ kind: 'verified', lines: g, conflicts: [] });
    });

    it('votes no line when a position was seen by no reading, or when fewer than two readings read it', () => {
      const line = 'L898902C36UTO7408122F1204159ZE184226B<<<<<10';
      expect(votedCheckDigitLine([{ text: line, confidences: [] }], line.length)).toBeUndefined();
      const short = { text: line.slice(0, -1) + '<', confidences: [], padFrom: line.length - 1 };
      expect(votedCheckDigitLine([short, short], line.length)).toBeUndefined();
      expect(votedCheckDigitLine([short, short, { text: line, confidences: [] }], line.length)).toBe(line);
    });
  });

  describe('where no combination holds: do the readings agree on the failure (a tampered document) or scatter (a misread)?', () => {
    const agreementOf = (readings: string[][]) => {
      const c = combineReadings(readings.map((r) => r.join('\n')));
      expect(c.kind).toBe('unverified');
      return c.kind === 'unverified' ? c.agreement : undefined;
    };
    /** The zone with its birth-date check digit (TD3 line 2, character 20) replaced by one `by` more. */
    const birthDigitPlus = (lines: string[], by: number) => misread(lines, 1, 19, String((Number(lines[1][19]) + by) % 10));

    it('agrees on a tampered check digit every reading reads, even when one reading misread another field', () => {
      const tampered = birthDigitPlus(zone('TD3', 50), 3);
      const other = misread(tampered, 1, 2, differentFrom(tampered[1][2]));
      const a = agreementOf([tampered, tampered, other, tampered, tampered]);
      expect(a?.lines).toEqual(tampered);
      // The composite check digit covers the birth date's check digit, so it fails too, as printed.
      expect(a?.failures).toEqual([
        { label: 'Birth date check digit', agreed: true, unsettledAt: [], malformed: [] },
        { label: 'Composite check digit', agreed: true, unsettledAt: [], malformed: [] },
      ]);
      expect(a && failureAgreed(a)).toBe(true);
      expect(a?.readings).toBe(5);
    });

    it('does not agree on a failure that holds if a character is the other one the OCR weighed there (every reading misread B as 8)', () => {
      const td3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
      const read = misread(td3, 1, 36, '8');
      /** A reading of `read` sure of every character (97 %), weighing B at `weight` where it read the 8. */
      const reading = (weight: number) => ({
        text: read.join('\n'),
        lines: read.map((text, n) => ({
          text,
          confidences: [...text].map(() => 0.97),
          alternatives: [...text].map((_, i) => (n === 1 && i === 36 ? [{ char: 'B', confidence: weight }] : [])),
        })),
      });
      const torn = combineReadings([reading(0.5), reading(0.2), reading(0.1)]);
      expect(torn.kind).toBe('unverified');
      if (torn.kind !== 'unverified') return;
      const heldIf = { line: 1, column: 36, read: '8', as: 'B' };
      expect(torn.agreement.failures).toEqual([
        { label: 'Personal number check digit', agreed: false, unsettledAt: [], malformed: [], heldIf },
        { label: 'Composite check digit', agreed: false, unsettledAt: [], malformed: [], heldIf },
      ]);
      expect(failureAgreed(torn.agreement)).toBe(false);
      // The B weighed under DOUBT (0.3) by every reading: they agree on the failure, as a tampered document's do.
      const sure = combineReadings([reading(0.25), reading(0.2), reading(0.1)]);
      expect(sure.kind === 'unverified' && failureAgreed(sure.agreement)).toBe(true);
    });

    it('agrees on a tampered check digit even where a character the OCR weighed would hold it, when that character makes no valid field (a letter in a date)', () => {
      const tampered = birthDigitPlus(zone('TD3', 50), 3);
      // Every letter the OCR might weigh at the birth date's first digit; one holding the check digit by its value makes no date.
      for (const letter of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
        const reading = {
          text: tampered.join('\n'),
          lines: tampered.map((text, n) => ({ text, confidences: [...text].map(() => 0.97), alternatives: [...text].map((_, i) => (n === 1 && i === 13 ? [{ char: letter, confidence: 0.6 }] : [])) })),
        };
        const c = combineReadings([reading, reading, reading]);
        expect(c.kind === 'unverified' && c.agreement.failures.find((f) => f.label === 'Birth date check digit')?.heldIf).toBeUndefined();
      }
    });

    it('does not agree on a failure in a zone whose document code is no document code (read from its second character)', () => {
      const tampered = birthDigitPlus(zone('TD3', 50), 3);
      const shifted = misread(tampered, 0, 0, 'L');
      const a = agreementOf([shifted, shifted, shifted]);
      expect(a?.failures.map((f) => ({ label: f.label, agreed: f.agreed, malformed: f.malformed }))).toEqual([
        { label: 'Birth date check digit', agreed: false, malformed: ['Document code'] },
        { label: 'Composite check digit', agreed: false, malformed: ['Document code'] },
      ]);
      expect(failureAgreed(agreementOf([tampered, tampered, tampered])!)).toBe(true);
    });

    it('agrees where the leading reading outweighs the others twice (3 to 1), which would not settle a name', () => {
      const tampered = birthDigitPlus(zone('TD3', 57), 3);
      expect(failureAgreed(agreementOf([tampered, tampered, birthDigitPlus(tampered, 4), tampered])!)).toBe(true);
      expect(failureAgreed(agreementOf([tampered, birthDigitPlus(tampered, 4), tampered, birthDigitPlus(tampered, 4), tampered])!)).toBe(false);
    });

    it('does not agree when the readings scatter on the failing check digit itself (two read it one way, two another)', () => {
      const truth = zone('TD3', 51);
      const a = agreementOf([birthDigitPlus(truth, 3), birthDigitPlus(truth, 5), birthDigitPlus(truth, 3), birthDigitPlus(truth, 5)]);
      expect(a?.failures).toEqual([
        { label: 'Birth date check digit', agreed: false, unsettledAt: [{ line: 1, column: 19 }], malformed: [] },
        { label: 'Composite check digit', agreed: false, unsettledAt: [{ line: 1, column: 19 }], malformed: [] },
      ]);
      expect(a && failureAgreed(a)).toBe(false);
    });

    it('does not agree when the readings agree on the check digit but scatter on a character of the field it covers', () => {
      const truth = zone('TD3', 52);
      // The year's first digit: any year is a date, so only the check digits fail.
      const one = misread(truth, 1, 13, String((Number(truth[1][13]) + 1) % 10));
      const two = misread(truth, 1, 13, String((Number(truth[1][13]) + 2) % 10));
      const a = agreementOf([one, two, one, two]);
      expect(a?.failures).toEqual([
        { label: 'Birth date check digit', agreed: false, unsettledAt: [{ line: 1, column: 13 }], malformed: [] },
        { label: 'Composite check digit', agreed: false, unsettledAt: [{ line: 1, column: 13 }], malformed: [] },
      ]);
    });

    it('counts a date read with O for a zero as the same date (the parser reads an O in a date as 0)', () => {
      for (let seed = 53; seed < 80; seed++) {
        const tampered = birthDigitPlus(zone('TD3', seed), 3);
        const column = [...tampered[1]].findIndex((c, i) => i >= 13 && i < 19 && c === '0');
        if (column < 0) continue;
        const o = misread(tampered, 1, column, 'O');
        expect(agreementOf([o, tampered, o, tampered])?.failures.map((f) => [f.label, f.agreed])).toEqual([
          ['Birth date check digit', true],
          ['Composite check digit', true],
        ]);
        return;
      }
      throw new Error('no birth date with a zero in seeds 53-79');
    });

    it('does not agree on characters most readings did not see (split glyphs abstain): two readings that saw them are not the readings agreeing', () => {
      const tampered = birthDigitPlus(zone('TD3', 55), 3);
      const unseen = misread(misread(tampered, 1, 19, '?'), 1, 14, '?');
      const a = agreementOf([tampered, tampered, unseen, unseen, unseen]);
      expect(a?.failures.map((f) => [f.label, f.agreed])).toEqual([
        ['Birth date check digit', false],
        ['Composite check digit', false],
      ]);
      expect(a?.failures[0].unsettledAt).toEqual([
        { line: 1, column: 19 },
        { line: 1, column: 14 },
      ]);
      expect(failureAgreed(agreementOf([tampered, tampered, tampered, unseen, unseen])!)).toBe(true);
    });

    it('does not agree on what is not well formed: a check digit every reading read as a filler (a line read shifted, not a digit printed)', () => {
      const truth = zone('TD3', 56);
      const filler = misread(truth, 1, 19, '<');
      const a = agreementOf([filler, filler, filler, filler]);
      expect(a?.failures).toEqual([
        { label: 'Birth date check digit', agreed: false, unsettledAt: [], malformed: ['check digit'] },
        { label: 'Composite check digit', agreed: false, unsettledAt: [], malformed: ['Birth date check digit'] },
      ]);
    });

    it('weighs each reading by its confidence: a dissent the OCR itself was unsure of does not unsettle a position', () => {
      const tampered = birthDigitPlus(zone('TD3', 54), 3);
      const unsure = birthDigitPlus(tampered, 4);
      const sure = (lines: string[]) => ({ text: lines.join('\n'), lines: lines.map((text) => ({ text, confidences: [...text].map(() => 0.95) })) });
      const doubting = { text: unsure.join('\n'), lines: unsure.map((text) => ({ text, confidences: [...text].map((_, i) => (i === 19 ? 0.2 : 0.95)) })) };
      const c = combineReadings([sure(tampered), doubting, sure(tampered)]);
      expect(c.kind === 'unverified' && c.agreement.failures.map((f) => [f.label, f.agreed])).toEqual([
        ['Birth date check digit', true],
        ['Composite check digit', true],
      ]);
    });
  });

  it('is none when no reading has MRZ-shaped lines', () => {
    expect(combineReadings(['', 'HELLO\nWORLD'])).toEqual({ kind: 'none' });
  });
});

describe('normaliseMrzLines', () => {
  it('drops marks read before the document code of an over-long first line', () => {
    for (const format of ['TD1', 'TD2', 'TD3'] as const) {
      const truth = zone(format, 11);
      const text = ['BB' + truth[0], ...truth.slice(1)].join('\n');
      expect(normaliseMrzLines(text)).toMatchObject({ format, lines: truth });
    }
  });

  it('fills a line read short with fillers and says where they start (they were not read)', () => {
    const truth = zone('TD3', 12);
    expect(normaliseMrzLines([truth[0], truth[1].slice(0, -2)].join('\n'))).toMatchObject({ lines: [truth[0], truth[1].slice(0, -2) + '<<'], padFrom: [undefined, 42] });
  });

  it('keeps a first line of the right length as read, even when it does not start with a document code', () => {
    const truth = zone('TD3', 12);
    const odd = 'X' + truth[0].slice(1);
    expect(normaliseMrzLines([odd, truth[1]].join('\n'))?.lines[0]).toBe(odd);
  });
});

describe('zeroOrOChoice (O and 0 drawn alike in OCR-B)', () => {
  const td3 = ['P<ESPHAEMAELAEINEN<STROEM<<LEIF<ERIK<<<<<<<<', 'HP30VEC9E9ESP7711112M3602047EA407DJ5A526A<12'];
  it('names the one O of the document number that, read as a zero, makes every check digit hold; never as a verified zone', () => {
    const read = misread(td3, 1, 3, 'O');
    const c = combineReadings([read.join('\n'), read.join('\n')]);
    expect(c.kind).toBe('unverified');
    expect(c).toMatchObject({ zeroOrO: { lines: td3, positions: [{ line: 1, column: 3, read: 'O', field: 'documentNumber' }] } });
    expect(zeroOrOChoice([read], 0)?.lines).toEqual(td3);
  });

  it('offers nothing when the check digits fail for another reason, or when no O or 0 can be swapped', () => {
    const wrongDigit = misread(misread(td3, 1, 3, 'O'), 1, 9, '4');
    expect(zeroOrOChoice([wrongDigit], 0)).toBeUndefined();
    const noLookAlike = misread(td3, 1, 1, 'Q');
    expect(zeroOrOChoice([noLookAlike], 0)).toBeUndefined();
  });
});

describe('checkBlindLetterLines (a letter a check digit cannot tell from the digit it looks like)', () => {
  const td1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];
  const td3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

  it('names the line whose document number holds a G or an S (a 6 or an 8 read so keeps every check digit holding)', () => {
    expect(checkBlindLetterLines(td1, 2)).toEqual([]);
    expect(checkBlindLetterLines(misread(td1, 0, 9, 'G'), 2)).toEqual([0]);
    expect(checkBlindLetterLines(misread(td3, 1, 4, 'S'), 0)).toEqual([1]);
  });

  it('passes over the names, codes and dates: their letters and digits are no document number', () => {
    // ERIKSSON holds two S; UTO is a state code; an S in the TD3 personal number is still named.
    expect(checkBlindLetterLines(td3, 0)).toEqual([]);
    expect(checkBlindLetterLines(misread(td3, 1, 30, 'S'), 0)).toEqual([1]);
    expect(checkBlindLetterLines(misread(td1, 1, 15, 'G'), 2)).toEqual([]);
  });
});
