import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadList } from '../sanctions-list.loader';
import type { ListSnapshot } from '../../../entities/list-snapshot.document';

/** The committed fixture folder (never the shared data folder). */
export const FIXTURE_DIR = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'sanctions');

const walkUp = async (): Promise<string> => {
  // Compiled copies run from dist/…; find the repo's fixture folder from either place.
  for (const dir of [FIXTURE_DIR, join(process.cwd(), 'test', 'fixtures', 'sanctions')]) {
    try {
      await readFile(join(dir, 'PROVENANCE.md'));
      return dir;
    } catch {
      /* try the next */
    }
  }
  throw new Error('test/fixtures/sanctions not found');
};

/** Every fixture list loaded through the public loader, one snapshot per file or file set. */
export async function loadFixtureSnapshots(): Promise<ListSnapshot[]> {
  const dir = await walkUp();
  const r = (f: string): Promise<Buffer> => readFile(join(dir, f));
  return Promise.all([
    loadList('ofac', 'auto', 'consolidated_excerpt.xml', await r('consolidated_excerpt.xml')),
    loadList('ofac', 'auto', 'sdn_advanced_excerpt.xml', await r('sdn_advanced_excerpt.xml')),
    loadList('ofac', 'ofac_csv', 'sdn.csv', { sdn: await r('sdn.csv'), alt: await r('alt.csv'), add: await r('add.csv'), comments: await r('sdn_comments.csv') }),
    loadList('eu', 'auto', 'fsf_1_1_excerpt.xml', await r('fsf_1_1_excerpt.xml')),
    loadList('uk', 'auto', 'uk_sanctions_list_excerpt.xml', await r('uk_sanctions_list_excerpt.xml')),
    loadList('un', 'auto', 'un_consolidated_excerpt.xml', await r('un_consolidated_excerpt.xml')),
    loadList('au', 'auto', 'Australian_Sanctions_Consolidated_List_excerpt.xlsx', await r('Australian_Sanctions_Consolidated_List_excerpt.xlsx')),
    loadList('au', 'auto', 'regulation8_consolidated_excerpt.xlsx', await r('regulation8_consolidated_excerpt.xlsx')),
  ]);
}
