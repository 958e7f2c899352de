/**
 * Audit entries are kept for years and cannot be rewritten, so an erasure must never need to
 * touch them: they carry ids, counts, classes, reasons and hashes only. This refuses the obvious
 * mistakes (a field named like personal data, a long free text) at the writer, in tests first.
 */
const PERSONAL_KEYS = /^(e-?mail|phone|name|full_name|display_name|first_name|last_name|given_name|family_name|address|dob|date_of_birth|birth_date|ip|ip_address|document_number|mrz|nationality|user_agent)$/i;
const MAX_STRING = 512;

export function assertNoPersonalData(detail: unknown, path = 'detail'): void {
  if (detail === null || typeof detail === 'number' || typeof detail === 'boolean') return;
  if (typeof detail === 'string') {
    if (detail.length > MAX_STRING) throw new Error(`${path} is longer than ${MAX_STRING} characters: audit entries hold ids and hashes, not free text`);
    if (detail.includes('\u0000')) throw new Error(`${path} holds a NUL character`);
    return;
  }
  if (Array.isArray(detail)) {
    detail.forEach((v, i) => assertNoPersonalData(v, `${path}[${i}]`));
    return;
  }
  if (typeof detail === 'object') {
    for (const [k, v] of Object.entries(detail as Record<string, unknown>)) {
      if (PERSONAL_KEYS.test(k)) throw new Error(`${path}.${k} looks like personal data: audit entries hold ids and hashes only`);
      assertNoPersonalData(v, `${path}.${k}`);
    }
    return;
  }
  if (detail === undefined) return;
  throw new Error(`${path} cannot hold a ${typeof detail}`);
}
