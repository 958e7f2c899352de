import type { ListId, SanctionsEntry } from './list-snapshot.document';

/** An entry as stored by a load that predates `reference` (every field but that one). */
export type StoredSanctionsEntry = Omit<SanctionsEntry, 'reference'> & { reference?: string };

function firstText(v: string | string[] | undefined): string | undefined {
  return (Array.isArray(v) ? v[0] : v)?.trim() || undefined;
}

/**
 * The list's own reference of an entry stored before the loaders recorded it. The loaders kept
 * the source field verbatim (UN `REFERENCE_NUMBER`, EU `euReferenceNumber`), and for the other
 * lists the record key is the reference (OFAC entry number, UK unique id, DFAT reference with
 * the loader's `~n` suffix for a reused number). The rule per list is in docs/sanctions.md.
 */
export function storedEntryReference(e: { list: ListId | string; entry_id: string; reference?: string; extra?: Record<string, string | string[]> }): string {
  if (e.reference) return e.reference;
  switch (e.list) {
    case 'un':
      return firstText(e.extra?.REFERENCE_NUMBER) ?? e.entry_id;
    case 'eu':
      return firstText(e.extra?.euReferenceNumber) ?? e.entry_id;
    case 'au':
      return e.entry_id.replace(/~\d+$/, '');
    default:
      return e.entry_id;
  }
}

/** Gives every entry of a stored snapshot its `reference` (a no-op for snapshots loaded since). */
export function withReferences(entries: StoredSanctionsEntry[]): SanctionsEntry[] {
  for (const e of entries) e.reference = storedEntryReference(e);
  return entries as SanctionsEntry[];
}
