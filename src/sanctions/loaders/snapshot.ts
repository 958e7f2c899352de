import { createHash } from 'node:crypto';
import type { ListFormat, ListId, ListSnapshot, SanctionsEntry } from '../../../entities/list-snapshot.document';

/**
 * The version label is the stated publish date plus a hash of the normalised content, so two
 * loads of the same data carry the same version and any change yields a new one.
 */
export function snapshotOf(list: ListId, format: ListFormat, fileName: string, entries: SanctionsEntry[], publishedAt?: string, warnings: string[] = []): ListSnapshot {
  const hash = createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 12);
  return {
    list,
    format,
    version: `${list}-${publishedAt ?? 'undated'}-${hash}`,
    source_file: fileName,
    published_at: publishedAt,
    loaded_at: new Date().toISOString(),
    entries,
    warnings,
  };
}

/** MM/DD/YYYY (OFAC) to YYYY-MM-DD. */
export function usDateToIso(s: string): string | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s.trim());
  return m ? `${m[3]}-${m[1].padStart(2, '0')}-${m[2].padStart(2, '0')}` : undefined;
}

/** DD/MM/YYYY (UK) to YYYY-MM-DD. */
export function ukDateToIso(s: string): string | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s.trim());
  return m ? `${m[3]}-${m[2].padStart(2, '0')}-${m[1].padStart(2, '0')}` : undefined;
}
