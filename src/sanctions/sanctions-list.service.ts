import type { Readable } from 'node:stream';
import { SanctionsLoadError } from './sanctions-load.error';
import { loadList, type OfacCsvFiles } from './sanctions-list.loader';
import type { CurrentListVersion, SanctionsListRepository, StoredListVersion } from './sanctions-list.repository';
import { LIST_IDS, type ListFormat, type ListId } from '../../entities/list-snapshot.document';

export const LIST_FORMATS: readonly ListFormat[] = ['ofac_xml', 'ofac_csv', 'ofac_advanced_xml', 'eu_fsf_xml', 'uk_xml', 'un_xml', 'dfat_xlsx'];

export const isListId = (s: string): s is ListId => (LIST_IDS as readonly string[]).includes(s);
export const isListFormat = (s: string): s is ListFormat => (LIST_FORMATS as readonly string[]).includes(s);

export type LoadOutcome = {
  list: ListId;
  version: string;
  previous_version: string | null;
  /** False when the same content was already stored (it is switched in again, not duplicated). */
  new_version: boolean;
  format: string;
  source_file: string;
  published_at: string | null;
  entries: number;
  warnings: string[];
  loaded_at: string;
};

/**
 * Loading a list file end to end: parse (the engine), then store and switch in. A file the
 * engine rejects throws SanctionsLoadError before anything is written, so the previous version
 * stays in force.
 */
export class SanctionsListService {
  constructor(private readonly repo: SanctionsListRepository) {}

  async load(list: ListId, format: ListFormat | 'auto', fileName: string, data: Buffer | string | Readable | OfacCsvFiles): Promise<LoadOutcome> {
    const snapshot = await loadList(list, format, fileName, data);
    if (snapshot.entries.length === 0) {
      // An empty list would silently clear every screening: treat it as the defect it almost surely is.
      throw new SanctionsLoadError(fileName, {}, 'the file holds no entries; the previous version stays in force');
    }
    const saved = await this.repo.save(snapshot);
    return {
      list,
      version: saved.version.version,
      previous_version: saved.previousVersion,
      new_version: saved.created,
      format: saved.version.format,
      source_file: saved.version.sourceFile,
      published_at: saved.version.publishedAt,
      entries: saved.version.entryCount,
      warnings: snapshot.warnings,
      loaded_at: saved.version.loadedAt.toISOString(),
    };
  }

  /** The version in force of each loaded list, with when it was loaded or last confirmed current (one small query). */
  inForce(): Promise<CurrentListVersion[]> {
    return this.repo.currentVersions();
  }

  overview(historyPerList = 10): Promise<{ current: Map<ListId, StoredListVersion>; history: Map<ListId, StoredListVersion[]> }> {
    return this.repo.overview(historyPerList);
  }
}
