import { settled, structurallyImpossible, structurallyValid, tally, voteLine, type LineReading } from './mrz-votes';

const sure = (text: string, confidence = 0.98): LineReading => ({ text, confidences: [...text].map(() => confidence) });
/** `text` read with `confidence` for the character at `at` and 0.98 elsewhere. */
const unsureAt = (text: string, at: number, confidence: number): LineReading => ({ text, confidences: [...text].map((_, i) => (i === at ? confidence : 0.98)) });
const swap = (text: string, at: number, by: string) => text.slice(0, at) + by + text.slice(at + 1);

const NAME = 'ROSSI<<SANNE<<<<<<<<<<<<<<<<<';
const S = NAME.indexOf('SANNE');

describe('tally and settled (one position of one line)', () => {
  const at = (readings: LineReading[], i: number) => tally(readings, NAME.length)[i];

  it('settles a position two readings read the same, and not one a single reading saw', () => {
    expect(settled(at([sure(NAME), sure(NAME)], S))).toBe(true);
    expect(settled(at([sure(NAME)], S))).toBe(false);
  });

  it('does not settle 2 to 1 or 3 to 1 at equal confidence (three of four readings once read SANNE as GANNE), but 4 to 1', () => {
    const g = sure(swap(NAME, S, 'G'));
    expect(settled(at([sure(NAME), sure(NAME), g], S))).toBe(false);
    expect(settled(at([g, g, g, sure(NAME)], S))).toBe(false);
    expect(settled(at([sure(NAME), sure(NAME), sure(NAME), sure(NAME), g], S))).toBe(true);
  });

  it("weighs each vote by the OCR's confidence: a dissent the OCR itself was unsure of counts for little", () => {
    expect(settled(at([sure(NAME), sure(NAME), unsureAt(swap(NAME, S, 'G'), S, 0.3)], S))).toBe(true);
    expect(settled(at([sure(NAME), sure(NAME), unsureAt(swap(NAME, S, 'G'), S, 0.9)], S))).toBe(false);
  });

  it('lets the fillers added to a line read short abstain: the reading never saw those positions', () => {
    const short: LineReading = { ...sure(NAME.slice(0, S + 2) + '<'.repeat(NAME.length - S - 2)), padFrom: S + 2 };
    expect(at([sure(NAME), sure(NAME), short], S + 3)).toEqual([{ char: 'N', votes: 2, weight: expect.closeTo(1.96, 5) }]);
    expect(at([sure(NAME), sure(NAME), short], S + 1)).toEqual([{ char: 'A', votes: 3, weight: expect.closeTo(2.94, 5) }]);
  });

  it('lets an unknown position (a split glyph) abstain', () => {
    const t = at([sure(NAME), sure(NAME), sure(swap(NAME, S, '?'))], S);
    expect(t).toEqual([{ char: 'S', votes: 2, weight: expect.closeTo(1.96, 5) }]);
    expect(settled(t)).toBe(true);
  });
});

describe('the name field structure (ICAO 9303: primary, <<, secondary, filler to the end)', () => {
  it('rules out letters after the filler has begun, and digits anywhere', () => {
    expect([...structurallyImpossible('ROSSI<<SANNE<<<<<K<<<<<<<<<<<', 0)]).toEqual([17]);
    expect([...structurallyImpossible('P<NLDROSSI<<SANNE<<<<<<K<<<', 5)]).toEqual([23]);
    expect([...structurallyImpossible('ROSS1<<SANNE<<<<<<<<<<<<<<<<<', 0)]).toEqual([4]);
    // No given names: the filler begins right after the separator.
    expect([...structurallyImpossible('NG<<<<<<<<<<<<<<<<<<<<<<<X<<<', 0)]).toEqual([25]);
  });

  it('allows single fillers between names, several given names, and a name that fills the field', () => {
    for (const field of ['VAN<DER<BERG<<ANNA<MARIA<<<<<<', 'NG<<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'PAPADOPOULOU<<CHRISTOPHER<ALEX', 'WOLFESCHLEGELSTEINHAUSENBERGER'])
      expect(structurallyValid(field, 0)).toBe(true);
  });

  it('is not well formed when it starts with a filler or holds a letter after the filler', () => {
    expect(structurallyValid('<ROSSI<<SANNE<<<<<<<<<<<<<<<<', 0)).toBe(false);
    expect(structurallyValid('ROSSI<<SANNE<<<<<K<<<<<<<<<<<', 0)).toBe(false);
  });
});

describe('voteLine (a name line voted character by character)', () => {
  it('reads the printed name from readings that each misread a different character', () => {
    const readings = [sure(swap(NAME, 0, 'B')), sure(swap(NAME, S + 1, 'R')), sure(swap(NAME, S + 3, 'M')), sure(NAME), sure(swap(NAME, 2, 'Q'))];
    const v = voteLine(readings, NAME.length, 0);
    expect(v).toMatchObject({ line: NAME, settled: true, agreeing: 1 });
  });

  it('reads a letter in a reading\'s own filler as a filler at half weight (a mark beside the zone read as K)', () => {
    expect(voteLine([sure(NAME), sure(swap(NAME, 20, 'K'))], NAME.length, 0)).toMatchObject({ line: NAME, settled: true });
    // Without the structure, one K against one < settles nothing.
    expect(voteLine([sure(NAME), sure(swap(NAME, 20, 'K'))], NAME.length)).toMatchObject({ settled: false });
  });

  it('leaves unsettled the positions the readings dispute, and names them', () => {
    const v = voteLine([sure(NAME), sure(swap(NAME, 4, '<')), sure(NAME)], NAME.length, 0);
    expect(v).toMatchObject({ line: NAME, settled: false, unsettledAt: [4], agreeing: 2 });
  });

  it('counts fillers added to a name line read short as fillers once its own filler had begun, and as unread before', () => {
    const end = NAME.indexOf('<<', S);
    const afterFiller: LineReading = { ...sure(NAME.slice(0, end + 2) + '<'.repeat(NAME.length - end - 2)), padFrom: end + 2 };
    expect(voteLine([afterFiller, afterFiller], NAME.length, 0)).toMatchObject({ line: NAME, settled: true });
    const midName: LineReading = { ...sure(NAME.slice(0, S + 2) + '<'.repeat(NAME.length - S - 2)), padFrom: S + 2 };
    expect(voteLine([midName, midName], NAME.length, 0)).toMatchObject({ settled: false });
    expect(voteLine([midName, sure(NAME), sure(NAME)], NAME.length, 0)).toMatchObject({ line: NAME, settled: true });
  });

  it('counts a digit read in a name against the letters read there (for none of them): 2 S to 8 digits is not settled', () => {
    const six = sure(swap(NAME, S, '6'));
    expect(voteLine([sure(NAME), sure(NAME), six, six, six, six, six, six, six, sure(swap(NAME, S, '5'))], NAME.length, 0)).toMatchObject({ settled: false, unsettledAt: [S] });
    // One digit at half weight does not unsettle a letter two readings read alike; a digit that leads is no name.
    expect(voteLine([sure(NAME), sure(NAME), six], NAME.length, 0)).toMatchObject({ line: NAME, settled: true });
    expect(voteLine([six, six, sure(NAME)], NAME.length, 0)).toMatchObject({ settled: false });
  });

  it('does not settle a filler inside a name that an aligned reading read as a letter (a K that lost its stem; tuning #192)', () => {
    const name = 'OKAFOR<<ERIKA<<<<<<<<<<<<<<<<<';
    const lost = swap(name, name.indexOf('ERIKA') + 3, '<');
    const v = voteLine([lost, lost, lost, lost, lost, name].map((t) => sure(t)), name.length, 0);
    expect(v).toMatchObject({ line: lost, settled: false, unsettledAt: [name.indexOf('ERIKA') + 3] });
    // A reading shifted by a dropped character puts letters where the others read fillers: it does not count.
    const shifted = name.slice(0, 3) + name.slice(4) + '<';
    expect(voteLine([lost, lost, lost, lost, lost, shifted].map((t) => sure(t)), name.length, 0)).toMatchObject({ line: lost, settled: true });
  });

  it('is never settled on a line that is not a well-formed name field, however many readings agree', () => {
    const odd = '<ROSSI<SANNE<<<<<<<<<<<<<<<<<';
    expect(voteLine([sure(odd), sure(odd), sure(odd)], odd.length, 0)).toMatchObject({ line: odd, settled: false });
  });
});

describe('a name letter the OCR weighed against another letter', () => {
  const line = 'IRUSAFERREIRA<DOS<SANTOS<<I<<<<<<<<<';
  const at = line.indexOf('<<I') + 2;
  /** `line` read with 0.95 confidence, but `own` at `at`, where the letter J was weighed at `weight`. */
  const weighing = (weight: number, own = 0.8): LineReading => ({
    text: line,
    confidences: [...line].map((_, i) => (i === at ? own : 0.95)),
    alternatives: [...line].map((_, i) => (i === at ? [{ char: 'J', confidence: weight }] : [])),
  });

  it('leaves a one-letter given name unsettled when a reading nearly read another letter (seed 20261302: J read I, J at 65 %)', () => {
    const vote = voteLine([weighing(0.65), weighing(0)], line.length, 5);
    expect(vote).toMatchObject({ line, settled: false, unsettledAt: [at] });
  });

  it('settles it when no reading weighed another letter strongly, or when the OCR was sure of the letter it read', () => {
    expect(voteLine([weighing(0.1), weighing(0)], line.length, 5)).toMatchObject({ line, settled: true });
    expect(voteLine([weighing(0.65, 0.98), weighing(0.65, 0.98)], line.length, 5)).toMatchObject({ line, settled: true });
  });
});
