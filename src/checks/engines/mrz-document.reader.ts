import type { DocumentReader, DocumentReading, ImageInput, ModelRef } from '../check-providers';
import { decodeImage } from './image-tools';
import { locateMrz } from './mrz-locator';
import { MRZ_OCR_MODEL } from './mrz-ocr';
import { judgeMrzText } from './mrz-text';

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
    const reading = judgeMrzText(text, now, model, details);
    return { ...reading, rank: reading.verdict === 'pass' ? 5 : reading.mrz ? (reading.reason.includes('expired') ? 4 : 3) : 2 };
  }
}
