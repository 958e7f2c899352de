import { DomainError } from '../src/errors';
import type { BulkRecordInput } from '../src/bulk-import/bulk-import.service';
import { assertAcceptableInput } from '../src/validation/input-limits';
import { BODY_LIMIT_BYTES } from '../http/json-body';
import { createSessionInput } from './create-session.request';
import { jsonRecords } from './bulk-import.json-records';

const invalid = (message: string) => new DomainError('invalid_request', message);

/** One record of a bulk body is at most what one create-session body may be. */
export const BULK_RECORD_MAX_BYTES = BODY_LIMIT_BYTES;
const NEWLINE = 0x0a;

export type BulkFormat = 'ndjson' | 'json';

/**
 * The records of a bulk-import body as they arrive (docs/api-behaviour.md, "Bulk import"): NDJSON,
 * one record per line (blank lines skipped, numbered as lines all the same), or JSON `{"records": [...]}`,
 * where a record's line is its position from 1. Lazy: the body is read only as far as the consumer
 * takes records, so the service's cap stops the reading at record 10,001, and nothing but the line
 * being read (at most BULK_RECORD_MAX_BYTES) is held.
 */
export function bulkRecordsOf(chunks: AsyncIterable<Buffer>, format: BulkFormat): AsyncGenerator<BulkRecordInput> {
  return format === 'ndjson' ? ndjsonRecords(chunks) : jsonRecords(chunks, recordOf);
}

/**
 * NDJSON, split on the newline byte: each line is decoded on its own, so one line that is not UTF-8,
 * holds a NUL or is longer than BULK_RECORD_MAX_BYTES is that line's rejection and the others go on.
 * A line over the limit is skipped to its newline without being kept.
 */
async function* ndjsonRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<BulkRecordInput> {
  let line = 1;
  let parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) {
        size += end - start;
        if (size <= BULK_RECORD_MAX_BYTES) parts.push(chunk.subarray(start, end));
        else parts = [];
      }
      if (newline === -1) break;
      if (size > 0) {
        const record = lineRecord(line, size, parts);
        if (record) yield record;
      }
      line += 1;
      parts = [];
      size = 0;
      start = newline + 1;
    }
  }
  if (size > 0) {
    const record = lineRecord(line, size, parts);
    if (record) yield record;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The record of one NDJSON line, or null for a blank one. */
function lineRecord(line: number, size: number, parts: Buffer[]): BulkRecordInput | null {
  const rejected = (message: string): BulkRecordInput => ({ line, referenceId: null, error: invalid(`Line ${line} ${message}`) });
  if (size > BULK_RECORD_MAX_BYTES) return rejected(`is longer than ${BULK_RECORD_MAX_BYTES / (1024 * 1024)} MiB, the most one create-session body may be`);
  const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
  if (bytes.includes(0)) return rejected('holds a NUL byte');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return rejected('is not UTF-8 text');
  }
  if (text.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return rejected('is not valid JSON');
  }
  return recordOf(line, parsed);
}

/**
 * One record: the create-session body (either shape, read by the single create's own reader) plus an
 * optional `email`, within the input limits every /v1 body meets (no NUL, no unpaired surrogate,
 * lengths and depth: src/validation/input-limits.ts).
 */
export function recordOf(line: number, value: unknown): BulkRecordInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { line, referenceId: null, error: invalid('The record must be a JSON object') };
  const { email, ...body } = value as Record<string, unknown>;
  const ref = body.reference_id ?? body.reference;
  const referenceId = typeof ref === 'string' ? ref : null;
  try {
    assertAcceptableInput({ record: value });
    if (email !== undefined && email !== null && typeof email !== 'string') throw invalid('email must be a string');
    return { line, referenceId, command: createSessionInput(body), email: typeof email === 'string' ? email : null };
  } catch (err) {
    if (err instanceof DomainError) return { line, referenceId, error: err };
    throw err;
  }
}
