import { MrzDocumentReader } from './mrz-document.reader';
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

  it('says so when the image holds no machine-readable zone', async () => {
    const r = await reader.read({ images: [{ bytes: Buffer.from('not an image'), contentType: 'image/png' }], now });
    expect(r).toMatchObject({ verdict: 'fail', reason: 'Document image 1 is not a readable image.' });
  });
});
