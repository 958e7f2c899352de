import { JSONParser, TokenType } from '@streamparser/json';
import type { ParsedTokenInfo } from '@streamparser/json';
import { DomainError } from '../src/errors';
import type { BulkRecordInput } from '../src/bulk-import/bulk-import.service';
import { INPUT_LIMITS } from '../src/validation/input-limits';
import { BODY_LIMIT_BYTES } from '../http/json-body';

const invalid = (message: string) => new DomainError('invalid_request', message);

/** One record is at most what one create-session body may be (BULK_RECORD_MAX_BYTES). */
const RECORD_MAX_BYTES = BODY_LIMIT_BYTES;
/** Bytes handed to the parser at a time: between two slices the reader checks its bounds and hands its records on. */
const SLICE_BYTES = 16 * 1024;
/** `{` and `records`' `[` above a record, plus the input limit's depth inside it. */
const MAX_DEPTH = 2 + INPUT_LIMITS.maxDepth + 1;

/**
 * The records of a JSON bulk body `{"records": [...]}`, read as it streams in with a streaming JSON
 * parser (@streamparser/json): each element of `records` is built and handed on as soon as its last
 * byte arrives, and dropped by the parser once emitted, so memory holds one record at a time, never
 * the body. The body as a whole must be UTF-8 JSON of that shape; a record larger than
 * RECORD_MAX_BYTES, or nested deeper than the input limits, ends the request (a JSON stream cannot
 * be resumed after a record it does not keep), as does anything outside `records`.
 */
export async function* jsonRecords(chunks: AsyncIterable<Buffer>, recordOf: (line: number, value: unknown) => BulkRecordInput): AsyncGenerator<BulkRecordInput> {
  const parser = new JSONParser({ paths: ['$.records.*'], keepStack: false });
  const shape = new RecordsShape();
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const ready: unknown[] = [];
  let position = 0;
  let lastToken = 0;
  let recordStart = 0;
  let fed = 0;
  parser.onToken = (t: ParsedTokenInfo) => {
    shape.see(t);
    lastToken = t.offset;
  };
  parser.onValue = ({ value }) => {
    ready.push(value);
    recordStart = lastToken;
  };
  const feed = (bytes: Uint8Array): void => {
    try {
      utf8.decode(bytes, { stream: true });
    } catch {
      throw invalid('The request body is not UTF-8 text');
    }
    try {
      parser.write(bytes);
    } catch (err) {
      throw err instanceof DomainError ? err : invalid('The request body is not valid JSON');
    }
    fed += bytes.length;
    if (fed - recordStart > RECORD_MAX_BYTES) throw invalid(`Record ${position + ready.length + 1} is larger than ${RECORD_MAX_BYTES / (1024 * 1024)} MiB, the most one create-session body may be`);
  };
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
      feed(chunk.subarray(at, at + SLICE_BYTES));
      while (ready.length > 0) yield recordOf(++position, ready.shift());
    }
  }
  try {
    utf8.decode();
  } catch {
    throw invalid('The request body is not UTF-8 text');
  }
  if (!parser.isEnded) throw invalid('The request body is not valid JSON: it ends too soon');
  shape.assertComplete();
}

/**
 * Follows the parser's tokens to hold the body to `{"records": [...]}` as it streams: the top level
 * an object, its one field `records`, an array; and no deeper nesting than MAX_DEPTH.
 */
class RecordsShape {
  private depth = 0;
  private expectingKey = false;
  private recordsValueNext = false;
  private sawRecords = false;

  see({ token, value }: ParsedTokenInfo): void {
    if (this.depth === 0 && token !== TokenType.LEFT_BRACE) throw invalid('The request body must be a JSON object {"records": [...]}');
    if (this.depth === 1) {
      if (this.expectingKey && token === TokenType.STRING) {
        if (value !== 'records') throw invalid(`Unknown field(s): ${JSON.stringify(String(value).slice(0, 64))}`);
        if (this.sawRecords) throw invalid('records is given twice');
        this.sawRecords = true;
        this.recordsValueNext = true;
        this.expectingKey = false;
      } else if (this.recordsValueNext && token !== TokenType.COLON) {
        if (token !== TokenType.LEFT_BRACKET) throw invalid('records must be an array of create-session bodies');
        this.recordsValueNext = false;
      } else if (token === TokenType.COMMA) {
        this.expectingKey = true;
      }
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      this.depth += 1;
      if (this.depth === 1) this.expectingKey = true;
      if (this.depth > MAX_DEPTH) throw invalid(`The request body is nested more than ${MAX_DEPTH} levels deep`);
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      this.depth -= 1;
    }
  }

  assertComplete(): void {
    if (!this.sawRecords) throw invalid('records must be an array of create-session bodies');
  }
}
