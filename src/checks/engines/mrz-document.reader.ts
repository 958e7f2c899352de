import type { DocumentReader, DocumentReading, ImageInput, ModelRef } from '../check-providers';
import { decodeImage } from './image-tools';
import { locateMrz } from './mrz-locator';
import { MRZ_OCR_MODEL } from './mrz-ocr';
import { failedFields, mrzFields, normaliseMrzLines, parseMrz } from './mrz-text';

/** What the reader needs from an OCR engine: text and a 0..1 confidence for a PNG strip. */
export interface MrzTextRecogniser {
  read(png: Buffer): Promise<{ text: string; confidence: number }>;
}

type Attempt = DocumentReading & { rank: number };

/**
 * `document_ocr` offline: finds the MRZ on each image (passport page, or card front then back), deskews
 * and reads it, validates every check digit with `mrz`, and checks expiry against `now`. Passes only when
 * every check digit holds and the document has not expired; otherwise the reason names what failed.
 */
export class MrzDocumentReader implements DocumentReader {
  constructor(
    private readonly ocr: MrzTextRecogniser,
    private readonly model: ModelRef = MRZ_OCR_MODEL,
  ) {}

  async read(input: { images: ImageInput[]; now: Date }): Promise<DocumentReading> {
    if (input.images.length === 0) return { verdict: 'fail', reason: 'No document image was captured.', model: this.model };
    let best: Attempt | undefined;
    for (const [index, image] of input.images.entries()) {
      const attempt = await this.readOne(image, index, input.now);
      if (!best || attempt.rank > best.rank) best = attempt;
      if (attempt.verdict === 'pass') break;
    }
    const { rank: _rank, ...reading } = best!;
    return reading;
  }

  private async readOne(image: ImageInput, index: number, now: Date): Promise<Attempt> {
    const model = this.model;
    let decoded;
    try {
      decoded = await decodeImage(image.bytes);
    } catch {
      return { verdict: 'fail', reason: `Document image ${index + 1} is not a readable image.`, model, rank: 0 };
    }
    const located = locateMrz(decoded);
    if (!located)
      return { verdict: 'fail', reason: 'No machine-readable zone was found on the document image.', model, rank: 1, details: { image: index } };
    const { text, confidence } = await this.ocr.read(await located.strip.encode('png'));
    const details = { image: index, skewDegrees: located.skewDegrees, ocrConfidence: Math.round(confidence * 1000) / 1000 };
    const normalised = normaliseMrzLines(text);
    if (!normalised)
      return { verdict: 'fail', reason: 'The machine-readable zone could not be read (no MRZ lines recognised).', model, rank: 2, details };
    const parsed = parseMrz(normalised.lines);
    const fields = mrzFields(parsed, normalised.format, now);
    const mrz = { text: normalised.lines.join('\n'), fields };
    const checkDigits = parsed.details.filter((d) => /check digit/i.test(d.label));
    const score = checkDigits.length ? checkDigits.filter((d) => d.valid).length / checkDigits.length : 0;
    if (!parsed.valid)
      return { verdict: 'fail', score, reason: `The ${normalised.format} MRZ does not validate: ${failedFields(parsed).join('; ')}.`, model, mrz, rank: 3, details };
    const today = now.toISOString().slice(0, 10);
    if (!fields.expiryDate || fields.expiryDate < today)
      return { verdict: 'fail', score, reason: `The document expired on ${fields.expiryDate}.`, model, mrz, rank: 4, details };
    return {
      verdict: 'pass',
      score,
      reason: `Every check digit of the ${normalised.format} MRZ holds and the document is valid until ${fields.expiryDate}.`,
      model,
      mrz,
      rank: 5,
      details,
    };
  }
}
