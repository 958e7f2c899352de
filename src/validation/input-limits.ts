import { DomainError } from '../errors';
import { hasUnstorableCharacters } from './postgres-text';

/**
 * Limits on what any operation accepts, whatever the transport (REST, GraphQL over HTTP or
 * WebSocket): they are checked on the arguments of every GraphQL root field, and by the REST routes
 * that call a service directly, on the same arguments. docs/security.md and openapi.yaml describe them.
 */
export const INPUT_LIMITS = {
  /** Characters in any one string argument or metadata value (field-specific limits, such as reference_id's 255, are tighter). */
  maxStringLength: 4096,
  /** Nesting of objects and arrays in any argument, counted from the argument itself. */
  maxDepth: 12,
  /** Items in any one array argument. */
  maxArrayItems: 1000,
  /** Date-time arguments lie in this range (PostgreSQL's timestamptz holds far more; nothing real lies outside it). */
  earliestDate: new Date('1970-01-01T00:00:00.000Z'),
  latestDate: new Date('9999-12-31T23:59:59.999Z'),
  metadata: {
    /** Nesting of objects and arrays inside `metadata` itself. */
    maxDepth: 5,
    /** Keys at every level together. */
    maxKeys: 50,
    maxKeyLength: 64,
    /** `metadata` serialised as JSON, in bytes. */
    maxBytes: 16 * 1024,
  },
} as const;

const invalid = (message: string) => new DomainError('invalid_request', message);

function checkString(s: string, where: string): void {
  if (s.length > INPUT_LIMITS.maxStringLength) throw invalid(`${where} is longer than ${INPUT_LIMITS.maxStringLength} characters`);
  if (hasUnstorableCharacters(s)) throw invalid(`${where} contains a NUL character or an unpaired UTF-16 surrogate`);
}

/**
 * Throws `invalid_request` naming the first argument that breaks a limit: a string too long or
 * holding a character PostgreSQL cannot store (NUL, an unpaired surrogate), in values and object
 * keys alike; nesting too deep; an array too long; a date-time outside the accepted range or not a
 * date at all. Iterative, so a 5,000-deep body costs a loop, not the stack. With `fieldsOf`, `args` are
 * the fields of that one argument (a REST body, which is one argument as GraphQL's `input` is): one level
 * deep, their names checked as its keys, each named by itself.
 */
export function assertAcceptableInput(args: Record<string, unknown>, fieldsOf?: string): void {
  if (fieldsOf) for (const k of Object.keys(args)) checkString(k, `a key of ${fieldsOf}`);
  const depth = fieldsOf ? 1 : 0;
  const stack: { value: unknown; where: string; depth: number }[] = Object.entries(args).map(([k, v]) => ({ value: v, where: k, depth }));
  while (stack.length > 0) {
    const { value, where, depth } = stack.pop()!;
    if (typeof value === 'string') {
      checkString(value, where);
    } else if (value instanceof Date) {
      const t = value.getTime();
      if (Number.isNaN(t) || t < INPUT_LIMITS.earliestDate.getTime() || t > INPUT_LIMITS.latestDate.getTime()) {
        throw invalid(`${where} must be a date-time from ${INPUT_LIMITS.earliestDate.toISOString()} to ${INPUT_LIMITS.latestDate.toISOString()}`);
      }
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw invalid(`${where} must be a finite number`);
    } else if (value !== null && typeof value === 'object') {
      if (depth >= INPUT_LIMITS.maxDepth) throw invalid(`${where} is nested more than ${INPUT_LIMITS.maxDepth} levels deep`);
      if (Array.isArray(value)) {
        if (value.length > INPUT_LIMITS.maxArrayItems) throw invalid(`${where} has more than ${INPUT_LIMITS.maxArrayItems} items`);
        value.forEach((v, i) => stack.push({ value: v, where: `${where}[${i}]`, depth: depth + 1 }));
      } else {
        for (const [k, v] of Object.entries(value)) {
          checkString(k, `a key of ${where}`);
          stack.push({ value: v, where: `${where}.${k}`, depth: depth + 1 });
        }
      }
    }
  }
}

/** The limits of a session's free-form `metadata` (beyond those of every argument). */
export function assertAcceptableMetadata(metadata: Record<string, unknown>): void {
  const { maxDepth, maxKeys, maxKeyLength, maxBytes } = INPUT_LIMITS.metadata;
  let keys = 0;
  const stack: { value: unknown; depth: number }[] = [{ value: metadata, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) throw invalid(`metadata is nested more than ${maxDepth} levels deep`); // metadata itself is the first level
    if (Array.isArray(value)) {
      for (const v of value) stack.push({ value: v, depth: depth + 1 });
      continue;
    }
    for (const [k, v] of Object.entries(value)) {
      if (++keys > maxKeys) throw invalid(`metadata has more than ${maxKeys} keys`);
      if (k.length > maxKeyLength) throw invalid(`metadata keys are at most ${maxKeyLength} characters`);
      stack.push({ value: v, depth: depth + 1 });
    }
  }
  if (Buffer.byteLength(JSON.stringify(metadata)) > maxBytes) throw invalid(`metadata is larger than ${maxBytes} bytes as JSON`);
}
