import { MrzDocumentReader, type MrzTextRecogniser } from './mrz-document.reader';
import { MrzOcr } from './mrz-ocr';
import { renderDocument } from '../../../bench/checks/synthetic-document';
import { buildMrz, randomFields, seededRandom } from '../../../bench/checks/mrz-lines';
import type { MrzFields } from '../check-providers';

const now = new Date('2026-11-23T12:00:00Z');

describe('MrzDocumentReader (offline OCR on rendered documents)', () => {
  let ocr: MrzOcr;
  let reader: MrzDocumentReader;
  beforeAll(async () => {
    ocr = await MrzOcr.start();
    reader = new MrzDocumentReader(ocr);
  });
  afterAll(() => ocr.close());

  const passport: MrzFields = {
    format: 'TD3',
    documentType: 'P',
    issuingState: 'NLD',
    documentNumber: 'XN4021K87',
    surname: 'VAN DER BERG',
    givenNames: 'SANNE',
    nationality: 'NLD',
    dateOfBirth: '1988-03-14',
    sex: 'F',
    expiryDate: '2031-06-30',
  };

  it('reads a passport page, validates every check digit and returns its fields', async () => {
    const doc = await renderDocument(passport, { rotateDegrees: 3 });
    const r = await reader.read({ images: [doc], now });
    expect(r.reason).toMatch(/Every check digit of the TD3 MRZ holds/);
    expect(r.verdict).toBe('pass');
    expect(r.mrz?.text).toBe(doc.mrz.join('\n'));
    expect(r.mrz?.fields).toEqual({ ...passport, surname: 'VAN DER BERG' });
    expect(r.model.model).toBe('tesseract.js-mrz');
  });

  it('declines a document whose date-of-birth check digit was altered, naming it', async () => {
    const lines = buildMrz(passport);
    const digit = lines[1][19];
    const tampered = [lines[0], lines[1].slice(0, 19) + String((Number(digit) + 3) % 10) + lines[1].slice(20)];
    const r = await reader.read({ images: [await renderDocument(passport, {}, Math.random, tampered)], now });
    expect(r.verdict).toBe('fail');
    expect(r.reason).toMatch(/birth date check digit/i);
    expect(r.mrz?.text).toBe(tampered.join('\n'));
  });

  it('fails an expired ID card (TD1, back side after a blank front) with the expiry date', async () => {
    const card = randomFields(seededRandom(3), 'TD1', now, true);
    const blankFront = await renderDocument(card, {}, Math.random, ['', '', '']);
    const back = await renderDocument(card);
    const r = await reader.read({ images: [blankFront, back], now });
    expect(r.verdict).toBe('fail');
    expect(r.reason).toBe(`The document expired on ${card.expiryDate}.`);
    expect(r.mrz?.fields.documentNumber).toBe(card.documentNumber);
  });

  it('sends a card image without a machine-readable zone to a person (review), never declining it', async () => {
    const card = randomFields(seededRandom(3), 'TD1', now);
    const blankFront = await renderDocument(card, {}, Math.random, ['', '', '']);
    const r = await reader.read({ images: [blankFront], now });
    expect(r.verdict).toBe('review');
    expect(r.reason).toMatch(/(No machine-readable zone was found|could not be read).*a person should read the document\.$/);
  });

  it('says so when the image holds no machine-readable zone', async () => {
    const r = await reader.read({ images: [{ bytes: Buffer.from('not an image'), contentType: 'image/png' }], now });
    expect(r).toMatchObject({ verdict: 'fail', reason: 'Document image 1 is not a readable image.' });
  });
});

/**
 * An OCR that answers from a script: a block read answers the next zone of `zones`, a line read the next
 * line of `lines` (the last answer repeats when a script runs out), so the reader's rules are tested on
 * exact, generated misreads of a rendered document. The reader's order of reads: the zone as a block, a
 * locally thresholded block, then (when check digits hold but the name is unsettled) the name line alone up
 * to 7 times, then each line alone, then 8 more block preprocessings.
 */
function scriptedOcr(zones: string[][], lines: string[] = []): MrzTextRecogniser & { calls: { block: number; line: number } } {
  const calls = { block: 0, line: 0 };
  return {
    calls,
    async read(_png: Buffer, mode: 'block' | 'line' = 'block') {
      if (mode === 'block') return { text: zones[Math.min(calls.block++, zones.length - 1)].join('\n'), confidence: 0.9 };
      return { text: lines[Math.min(calls.line++, lines.length - 1)] ?? '', confidence: 0.9 };
    },
  };
}

describe('MrzDocumentReader combining independent readings', () => {
  const card: MrzFields = { ...randomFields(seededRandom(21), 'TD1', now), surname: 'ROSSI', givenNames: 'SANNE', documentNumber: 'XG4021K87' };
  const truth = buildMrz(card);
  const swap = (lines: string[], line: number, column: number, by: string) => lines.map((l, i) => (i === line ? l.slice(0, column) + by + l.slice(column + 1) : l));
  const nameColumn = truth[2].indexOf('SANNE');
  const ganne = swap(truth, 2, nameColumn, 'G');
  let image: { bytes: Buffer; contentType: string };
  beforeAll(async () => {
    image = await renderDocument(card);
  });

  it('passes with the true fields when one reading misread a birth date and the other reading holds every check digit, after two readings', async () => {
    const ocr = scriptedOcr([swap(truth, 1, 2, truth[1][2] === '1' ? '2' : '1'), truth]);
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('pass');
    expect(r.mrz?.fields).toEqual(card);
    expect(r.details).toMatchObject({ readings: 2, nameReadingsAgreeing: 2 });
    // The document number holds a G, which its check digit cannot tell from a 6: its line is read alone once
    // more (checkBlindLetterLines); this script answers that read with nothing.
    expect(ocr.calls).toEqual({ block: 2, line: 1 });
  });

  it('reads the name line again alone when two readings differ on the name (SANNE / GANNE), and passes once the votes settle it', async () => {
    const ocr = scriptedOcr([truth, ganne], [truth[2], truth[2], truth[2], truth[0]]);
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('pass');
    expect(r.mrz?.fields).toEqual(card);
    // 1 to 1, then 2, 3 to 1 (not enough), then 4 to 1; then the document number's line (it holds a G) once.
    expect(ocr.calls).toEqual({ block: 2, line: 4 });
    expect(r.details).toMatchObject({ readings: 2, nameLineReadings: 3 });
  });

  it('sends to review, never to fail, a document whose every check digit holds but whose name the readings never settle, showing the readings', async () => {
    const ocr = scriptedOcr([truth, ganne, truth, ganne, truth, ganne, truth, ganne, truth], Array.from({ length: 10 }, (_, i) => (i % 2 ? truth[2] : ganne[2])));
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('review');
    expect(r.reason).toMatch(/^Every check digit holds, but the \d+ readings of the name line differ where no check digit can tell them apart: /);
    expect(r.reason).toContain(truth[2]);
    expect(r.reason).toContain(ganne[2]);
    expect(r.reason).toMatch(/a person should compare the names with the document\.$/);
    expect(r.details?.nameReadings).toEqual(expect.arrayContaining([expect.objectContaining({ line: truth[2] }), expect.objectContaining({ line: ganne[2] })]));
    expect(r.mrz?.fields.documentNumber).toBe(card.documentNumber);
  });

  it('never passes names that only one reading saw: readings that all differ on the name line are a review', async () => {
    const names = ['G', 'C', 'B', 'Q', 'O', 'D', 'E', 'F', 'H'].map((c) => swap(truth, 2, nameColumn, c));
    const ocr = scriptedOcr(names, ['J', 'K', 'L', 'M', 'N', 'P', 'R', 'T', 'U', 'V'].map((c) => swap(truth, 2, nameColumn, c)[2]));
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('review');
    expect(r.reason).toMatch(/readings of the name line differ where no check digit can tell them apart/);
  });

  it('sends to review a document number read as G by one reading and Q by another, which its check digit cannot tell apart', async () => {
    const column = truth[0].indexOf('XG4021K87') + 1;
    const q = swap(truth, 0, column, 'Q');
    const ocr = scriptedOcr([truth, q, q, truth, q, truth, q, truth, q], q);
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('review');
    expect(r.reason).toMatch(/where no check digit can tell them apart/);
    expect(r.details?.conflicts).toBeDefined();
  });

  it('reads the line alone once more where every zone reading read a G in the document number, and sends it to review when that reading sees a 6', async () => {
    const column = truth[0].indexOf('XG4021K87') + 1;
    const six = swap(truth, 0, column, '6');
    // Held-out seed 20261302, clean #7: a thin 6 read G by every zone reading passed with a wrong number.
    const doubted = await new MrzDocumentReader(scriptedOcr([truth, truth], [six[0]])).read({ images: [image], now });
    expect(doubted.verdict).toBe('review');
    expect(doubted.details).toMatchObject({ readings: 2, checkDigitLineReadings: 1, conflicts: [six[0]] });
    const confirmed = await new MrzDocumentReader(scriptedOcr([truth, truth], [truth[0]])).read({ images: [image], now });
    expect(confirmed.verdict).toBe('pass');
    expect(confirmed.mrz?.fields).toEqual(card);
  });

  /** Line reads in the reader's order when no combination holds: the zone's `lines` preprocessing (3 lines), then line 1 alone 7 times, then line 2 alone 7 times. */
  const lineReads = (zone: string[], line1: string[], line2: string[]) => [...zone, ...line1, ...line2];
  const expiryDigit = (lines: string[], by: number) => swap(lines, 1, 14, String((Number(lines[1][14]) + by) % 10));

  it('reads with every preprocessing before failing a zone whose check digit fails in all of them, and names the check digit', async () => {
    const tampered = expiryDigit(truth, 3);
    const ocr = scriptedOcr([tampered], lineReads(tampered, Array(7).fill(tampered[0]), Array(7).fill(tampered[1])));
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('fail');
    expect(r.reason).toMatch(/expiration date check digit/i);
    expect(r.reason).toMatch(/The \d+ readings agree on the expiration date check digit.* and on every character they cover\.$/);
    expect(r.details?.readings).toBe(11);
  });

  it('still fails a tampered check digit when a few readings misread it: the others agree on it (4 to 1 settles a position)', async () => {
    const tampered = expiryDigit(truth, 3);
    const misread = expiryDigit(tampered, 4);
    const ocr = scriptedOcr([tampered, tampered, tampered, misread, tampered], lineReads(tampered, Array(7).fill(tampered[0]), [misread[1], ...Array(6).fill(tampered[1])]));
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('fail');
    expect(r.reason).toMatch(/expiration date check digit/i);
    expect(r.mrz?.text).toBe(tampered.join('\n'));
  });

  it('sends to review, never fails, a zone whose readings scatter on the failing check digit (a misread, not a wrong digit)', async () => {
    // Every reading misreads the expiry check digit, one way or another; no combination holds and no vote settles it.
    const [a, b] = [expiryDigit(truth, 3), expiryDigit(truth, 5)];
    const zones = Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a));
    const ocr = scriptedOcr(zones, lineReads(b, Array(7).fill(truth[0]), Array.from({ length: 7 }, (_, i) => (i % 2 ? a[1] : b[1]))));
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('review');
    expect(r.reason).toMatch(/^No combination of the \d+ readings holds every check digit, but the readings do not agree on a well-formed failing check digit \(expiration date check digit: 1 of its characters read differently; /);
    expect(r.reason).toMatch(/a person should read the document\.$/);
    expect(r.details?.unsettledFailures).toEqual(expect.arrayContaining([{ label: 'Expiration date check digit', unsettled: 1 }]));
  });

  it('passes when only a later preprocessing reads the document number right (two readings read 0 as O)', async () => {
    const column = truth[0].indexOf('XG4021K87') + 3;
    const o = swap(truth, 0, column, 'O');
    const ocr = scriptedOcr([o, o, o, truth], o);
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('pass');
    expect(r.mrz?.fields).toEqual(card);
    expect(r.details?.readings).toBe(5);
  });

  it("reads a check-digit line alone when every zone reading missed the line's last character (the composite digit), and passes on the vote", async () => {
    const short = [truth[0], truth[1].slice(0, -1), truth[2]];
    // Block readings all miss it; line reads: the zone's `lines` preprocessing (3 lines), then line 1 alone
    // 7 times (read as printed), then line 2 alone, which sees the composite digit but misreads a birth-date
    // digit: no reading holds the check digits as read; the vote over all of them does.
    const alone = swap(truth, 1, 2, truth[1][2] === '1' ? '2' : '1')[1];
    // Last, the document number's line once more (it holds a G), read as printed.
    const ocr = scriptedOcr([short], [...short, ...Array.from({ length: 7 }, () => truth[0]), alone, truth[0]]);
    const r = await new MrzDocumentReader(ocr).read({ images: [image], now });
    expect(r.verdict).toBe('pass');
    expect(r.mrz?.fields).toEqual(card);
    expect(r.details).toMatchObject({ readings: 11, checkDigitLineReadings: 9 });
  });

  it('sends to review, never passes, a zone whose check digits hold only if an O that every reading read is a zero (OCR-B draws them alike)', async () => {
    const column = truth[0].indexOf('XG4021K87') + 3;
    const o = swap(truth, 0, column, 'O');
    const r = await new MrzDocumentReader(scriptedOcr([o], o)).read({ images: [image], now });
    expect(r.verdict).toBe('review');
    expect(r.reason).toBe(
      `Every check digit would hold if the letter O at character ${column + 1} of line 1 (documentNumber) were a zero: the two are drawn almost alike in OCR-B, so no reading can tell them apart; a person should compare the characters with the document.`,
    );
    expect(r.mrz?.fields.documentNumber).toBe(card.documentNumber);
    expect(r.details?.zeroOrO).toEqual([{ line: 0, column, field: 'documentNumber', read: 'O' }]);
  });
});
