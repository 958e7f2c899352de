import { createHash } from 'node:crypto';

/** The `prev_hash` of a log's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** Version tag of the encoding below; part of every hashed string so a future encoding cannot collide. */
export const AUDIT_ENCODING = 'audit-v1';

/** The fields of one audit entry that its hash covers (everything but the database's own sequence). */
export type ChainedFields = {
  logId: string;
  logSeq: number;
  prevHash: string;
  id: string;
  tenantId: string | null;
  livemode: boolean | null;
  action: string;
  subjectId: string;
  detail: Record<string, unknown>;
  createdAt: string;
};

/**
 * JSON with object keys sorted (by UTF-16 code units, JavaScript's default sort), no whitespace,
 * arrays in order, strings and numbers as JSON.stringify writes them. jsonb keeps neither key
 * order nor whitespace, so only this form survives the database round trip byte for byte.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error('audit detail numbers must be finite');
      return JSON.stringify(value);
    case 'object': {
      const o = value as Record<string, unknown>;
      const keys = Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
    }
    default:
      throw new Error(`audit detail cannot hold a ${typeof value}`);
  }
}

/**
 * The string an entry's hash is taken over (docs/retention-and-audit.md, "Canonical encoding"):
 * `audit-v1` and a newline, then a JSON array of the fields in this fixed order, the detail in
 * canonical JSON and `created_at` as ISO 8601 UTC with milliseconds.
 */
export function canonicalEntry(f: ChainedFields): string {
  return `${AUDIT_ENCODING}\n${canonicalJson([f.logId, f.logSeq, f.prevHash, f.id, f.tenantId, f.livemode, f.action, f.subjectId, f.detail, f.createdAt])}`;
}

export const entryHash = (f: ChainedFields): string => createHash('sha256').update(canonicalEntry(f), 'utf8').digest('hex');

/** A tenant's log per mode, or the service's own. */
export const logIdOf = (tenantId: string | null, livemode: boolean | null): string =>
  tenantId === null ? 'service' : `tenant:${tenantId}:${livemode ? 'live' : 'test'}`;
