import { DomainError } from '../src/errors';
import type { BulkRecordInput } from '../src/bulk-import/bulk-import.service';
import { createSessionInput } from './create-session.request';
import { objectWithFields } from './request-validation';

const invalid = (message: string) => new DomainError('invalid_request', message);

/**
 * The records of a bulk-import body (docs/api-behaviour.md, "Bulk import"): NDJSON, one record per
 * line (blank lines skipped, numbered as lines all the same), or JSON `{"records": [...]}`, where a
 * record's line is its position from 1. A body that is not UTF-8, or JSON that does not parse, is a
 * 400 for the whole request; an NDJSON line that does not parse, or a record that is not a
 * create-session body, is that record's rejection and the others go on.
 */
export function bulkRecordsOf(body: Buffer, format: 'ndjson' | 'json'): BulkRecordInput[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw invalid('The request body is not UTF-8 text');
  }
  if (format === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalid('The request body is not valid JSON');
    }
    const obj = objectWithFields(parsed, ['records']);
    if (!Array.isArray(obj.records)) throw invalid('records must be an array of create-session bodies');
    return obj.records.map((r, i) => recordOf(i + 1, r));
  }
  const records: BulkRecordInput[] = [];
  let line = 0;
  for (const raw of text.split('\n')) {
    line += 1;
    if (raw.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      records.push({ line, referenceId: null, error: invalid(`Line ${line} is not valid JSON`) });
      continue;
    }
    records.push(recordOf(line, parsed));
  }
  return records;
}

/** One record: the create-session body (either shape, read by the single create's own reader) plus an optional `email`. */
function recordOf(line: number, value: unknown): BulkRecordInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { line, referenceId: null, error: invalid('The record must be a JSON object') };
  const { email, ...body } = value as Record<string, unknown>;
  const ref = body.reference_id ?? body.reference;
  const referenceId = typeof ref === 'string' ? ref : null;
  try {
    if (email !== undefined && email !== null && typeof email !== 'string') throw invalid('email must be a string');
    return { line, referenceId, command: createSessionInput(body), email: typeof email === 'string' ? email : null };
  } catch (err) {
    if (err instanceof DomainError) return { line, referenceId, error: err };
    throw err;
  }
}
