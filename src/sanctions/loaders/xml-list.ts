import type { ListFormat, ListId, ListSnapshot, SanctionsEntry } from '../../../entities/list-snapshot.document';
import { SanctionsLoadError } from '../sanctions-load.error';
import { readXmlRecords, type ListInput, type XmlNode } from '../xml-records.reader';
import { snapshotOf } from './snapshot';

/** Where a list states its publish date: a header element's text, or an attribute of the root (ISO date and time). */
export type PublishDate = { header: string; toIso(text: string): string | undefined } | { rootAttribute: string };

/** One official XML list whose records each become one entry. */
export interface XmlList {
  list: ListId;
  format: ListFormat;
  roots: string[];
  records: string[];
  published: PublishDate;
  toEntry(node: XmlNode): SanctionsEntry;
}

/** A file without a single record is refused: it is the wrong file, not an empty list. */
export async function loadXmlList(input: ListInput, fileName: string, x: XmlList): Promise<ListSnapshot> {
  const entries: SanctionsEntry[] = [];
  let published: string | undefined;
  const dated = x.published;
  await readXmlRecords(input, fileName, {
    roots: new Set(x.roots),
    records: new Set(x.records),
    onRecord: (n) => entries.push(x.toEntry(n)),
    onHeaderText: (name, text) => {
      if ('header' in dated && name === dated.header) published = dated.toIso(text);
    },
    onRoot: (attrs) => {
      if ('rootAttribute' in dated) published = attrs[dated.rootAttribute]?.slice(0, 10) || undefined;
    },
  });
  if (entries.length === 0) throw new SanctionsLoadError(fileName, {}, `no ${x.records.map((r) => `<${r}>`).join(' or ')} records found`);
  return snapshotOf(x.list, x.format, fileName, entries, published);
}
