import type { DocumentReader, DocumentReading, ImageInput, ModelRef } from '../check-providers';
import { decodeImage } from './image-tools';
import { locateMrz } from './mrz-locator';
import { MRZ_OCR_MODEL } from './embedded-models';
import { combineReadings, type MrzConsensus } from './mrz-readings';
import { stripVariants } from './mrz-strip-variants';
import { judgeMrzText } from './mrz-text';

/** What the reader needs from an OCR engine: text and a 0..1 confidence for a PNG of a block or of one line. */
export interface MrzTextRecogniser {
  read(png: Buffer, mode?: 'block' | 'line'): Promise<{ text: string; confidence: number }>;
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
    // Independent readings until they agree: check digits hold on the lines chosen and two readings read
    // the name line (which no check digit covers) the same. Readings that agree on a failing check digit
    // do not stop it: the same misread (O for 0) often repeats in similar preprocessings and not in others.
    // Names pass only when no reading read them differently: OCR confuses S and G, or O and Q, the same way
    // in several readings, so a majority is not proof, and a misread name that passes is the worst outcome.
    const texts: string[] = [];
    const confidences: number[] = [];
    let consensus: MrzConsensus = { kind: 'none' };
    for (const variant of stripVariants(located)) {
      const reads = [];
      for (const image of variant.images) reads.push(await this.ocr.read(await image.encode('png'), variant.mode));
      texts.push(reads.map((r) => r.text).join('\n'));
      confidences.push(reads.reduce((s, r) => s + r.confidence, 0) / reads.length);
      consensus = combineReadings(texts);
      if (consensus.kind === 'verified' && consensus.nameVotes >= 2) break;
    }
    const confidence = confidences.reduce((s, c) => s + c, 0) / confidences.length;
    const details = {
      image: index,
      skewDegrees: located.skewDegrees,
      ocrConfidence: Math.round(confidence * 1000) / 1000,
      readings: texts.length,
      ...(consensus.kind === 'verified' ? { nameReadingsAgreeing: consensus.nameVotes } : {}),
    };
    const lines = consensus.kind === 'none' ? '' : consensus.lines.join('\n');
    let reading = judgeMrzText(lines, now, model, details);
    if (reading.verdict === 'pass' && consensus.kind === 'verified' && (consensus.nameVotes < 2 || consensus.conflicts.length > 0)) {
      const what =
        consensus.conflicts.length > 0
          ? `${texts.length} independent readings differ where no check digit can tell them apart (${consensus.conflicts.join(' / ')} against the lines kept)`
          : `no two of ${texts.length} independent readings read the name line the same`;
      reading = {
        ...reading,
        verdict: 'review',
        reason: `Every check digit holds, but ${what}; a person should compare the fields with the document.`,
      };
    }
    return { ...reading, rank: reading.verdict === 'pass' ? 6 : reading.verdict === 'review' ? 5 : reading.mrz ? (reading.reason.includes('expired') ? 4 : 3) : 2 };
  }
}
