import { AnalyzeIDCommand, DetectDocumentTextCommand, type TextractClient } from '@aws-sdk/client-textract';
import type { DocumentReader, DocumentReading, ImageInput, ModelRef } from '../check-providers';
import { judgeMrzText } from '../engines/mrz-text';
import { awsCall } from './aws-call';

export const TEXTRACT_MODEL: ModelRef = { provider: 'aws', model: 'textract-analyze-id', version: '2018-06-27' };
const TEXTRACT_TEXT_MODEL: ModelRef = { provider: 'aws', model: 'textract-detect-document-text', version: '2018-06-27' };

/**
 * `document_ocr` by AWS Textract: AnalyzeID's `MRZ_CODE` field when present (US passports only), else the
 * lines of DetectDocumentText; either way the MRZ is validated by the same rule as the offline reader
 * (every check digit with `mrz`, expiry).
 */
export class TextractDocumentReader implements DocumentReader {
  constructor(
    private readonly client: TextractClient,
    private readonly timeoutMs: number,
  ) {}

  async read(input: { images: ImageInput[]; now: Date }): Promise<DocumentReading> {
    if (input.images.length === 0) return { verdict: 'fail', reason: 'No document image was captured.', model: TEXTRACT_MODEL };
    let last: DocumentReading | undefined;
    for (const image of input.images) {
      const reading = await this.readOne(image, input.now);
      if (reading.verdict === 'pass' || reading.verdict === 'error' || reading.mrz) return reading;
      last = reading;
    }
    return last!;
  }

  private async readOne(image: ImageInput, now: Date): Promise<DocumentReading> {
    const analyzed = await awsCall(this.timeoutMs, TEXTRACT_MODEL, (abortSignal) =>
      this.client.send(new AnalyzeIDCommand({ DocumentPages: [{ Bytes: image.bytes }] }), { abortSignal }),
    );
    if (!analyzed.ok) return analyzed.result;
    const fields = analyzed.value.IdentityDocuments?.flatMap((d) => d.IdentityDocumentFields ?? []) ?? [];
    const mrzCode = fields.find((f) => f.Type?.Text === 'MRZ_CODE')?.ValueDetection?.Text;
    if (mrzCode && mrzCode.trim()) return judgeMrzText(mrzCode, now, TEXTRACT_MODEL, { source: 'AnalyzeID MRZ_CODE' });
    const detected = await awsCall(this.timeoutMs, TEXTRACT_TEXT_MODEL, (abortSignal) =>
      this.client.send(new DetectDocumentTextCommand({ Document: { Bytes: image.bytes } }), { abortSignal }),
    );
    if (!detected.ok) return detected.result;
    const lines = (detected.value.Blocks ?? []).filter((b) => b.BlockType === 'LINE' && b.Text).map((b) => b.Text!.replace(/\s+/g, ''));
    const mrzLines = lines.filter((l) => /^[A-Z0-9<]{28,46}$/.test(l) && l.includes('<'));
    return judgeMrzText(mrzLines.join('\n'), now, TEXTRACT_TEXT_MODEL, { source: 'DetectDocumentText lines', lines: mrzLines.length });
  }
}
