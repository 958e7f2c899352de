import { DomainError } from '../src/errors';

const invalid = (message: string) => new DomainError('invalid_request', message);

export type JsonObject = Record<string, unknown>;

export function requireObject(body: unknown, what = 'The request body'): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid(`${what} must be a JSON object`);
  return body as JsonObject;
}

export function rejectUnknownFields(body: JsonObject, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length) throw invalid(`Unknown field(s): ${unknown.join(', ')}`);
}

/** `raw` as a JSON object that has no field but `allowed`: the first check of every /v1 body. */
export function objectWithFields(raw: unknown, allowed: readonly string[], what = 'The request body'): JsonObject {
  const body = requireObject(raw, what);
  rejectUnknownFields(body, allowed);
  return body;
}

export function optionalString(body: JsonObject, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`${field} must be a string`);
  return v;
}

export function requiredString(body: JsonObject, field: string): string {
  const v = optionalString(body, field);
  if (v === undefined) throw invalid(`${field} is required`);
  return v;
}
