import { ChipInputError } from './chip.errors';

/** Real EF.SOD files are 1-3 KiB; a few embedded certificates more still fit easily. */
export const MAX_SOD_BYTES = 64 * 1024;
/** DG2 faces and DG3 fingerprints run to tens of KiB; DG5-7 images can be larger. */
export const MAX_DATA_GROUP_BYTES = 512 * 1024;
/** Decoded total; the HTTP body limit should allow this plus base64 overhead (x4/3). */
export const MAX_TOTAL_BYTES = 2 * 1024 * 1024;

export interface ChipSubmission {
  readonly sod: Buffer;
  readonly dataGroups: Map<number, Buffer>;
}

const DATA_GROUP_KEY = /^(?:[1-9]|1[0-6])$/;

/**
 * DG3 (fingerprints) and DG4 (iris) are biometrics the service never collects (spec, "Data never
 * collected"): refused before their bytes are decoded, hashed or kept. An app should not read them
 * (they sit behind Extended Access Control anyway).
 */
export const REFUSED_DATA_GROUPS: ReadonlyMap<number, string> = new Map([
  [3, 'fingerprints'],
  [4, 'iris images'],
]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Validates the API body `{ sod: base64, data_groups: { "1": base64, ... } }`. DG1 is required:
 * without it nothing the service reports (issuing state, document type, expiry) is authenticated.
 * Throws ChipInputError with `invalid_request`, `data_group_not_allowed` (DG3, DG4) or `payload_too_large`.
 */
export function decodeChipSubmission(body: unknown): ChipSubmission {
  if (!isPlainObject(body)) throw new ChipInputError('invalid_request', 'body must be a JSON object');
  const sod = decodeBase64(body.sod, 'sod', MAX_SOD_BYTES);

  const groups = body.data_groups;
  if (!isPlainObject(groups)) throw new ChipInputError('invalid_request', 'data_groups must be an object keyed by data group number', 'data_groups');
  const dataGroups = new Map<number, Buffer>();
  let total = sod.length;
  for (const [key, value] of Object.entries(groups)) {
    if (!DATA_GROUP_KEY.test(key)) {
      throw new ChipInputError('invalid_request', `data group "${key}" is not a number from 1 to 16`, `data_groups.${key}`);
    }
    const refused = REFUSED_DATA_GROUPS.get(Number(key));
    if (refused) {
      throw new ChipInputError('data_group_not_allowed', `data group ${key} (${refused}) is not accepted: the service never collects ${refused}. Send DG1, DG2 and the other groups only`, `data_groups.${key}`);
    }
    const bytes = decodeBase64(value, `data_groups.${key}`, MAX_DATA_GROUP_BYTES);
    total += bytes.length;
    if (total > MAX_TOTAL_BYTES) throw new ChipInputError('payload_too_large', `submission exceeds ${MAX_TOTAL_BYTES} bytes`, 'data_groups');
    dataGroups.set(Number(key), bytes);
  }
  if (!dataGroups.has(1)) throw new ChipInputError('invalid_request', 'data group 1 (MRZ) is required', 'data_groups.1');
  return { sod, dataGroups };
}

function decodeBase64(value: unknown, field: string, maxBytes: number): Buffer {
  if (typeof value !== 'string' || value.length === 0) throw new ChipInputError('invalid_request', `${field} must be a non-empty base64 string`, field);
  // Checked before decoding so a huge string is rejected without allocating its bytes.
  if (Math.floor((value.length * 3) / 4) > maxBytes + 2) throw new ChipInputError('payload_too_large', `${field} exceeds ${maxBytes} bytes`, field);
  // Buffer.from(..., 'base64') silently skips bad characters; validate strictly first.
  if (!BASE64.test(value) || value.length % 4 === 1 || (value.includes('=') && value.length % 4 !== 0)) {
    throw new ChipInputError('invalid_request', `${field} is not valid base64`, field);
  }
  const bytes = Buffer.from(value, 'base64');
  if (bytes.toString('base64').replace(/=+$/, '') !== value.replace(/=+$/, '')) {
    throw new ChipInputError('invalid_request', `${field} is not canonical base64`, field);
  }
  if (bytes.length > maxBytes) throw new ChipInputError('payload_too_large', `${field} exceeds ${maxBytes} bytes`, field);
  return bytes;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
