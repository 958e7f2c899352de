import { parseBirthDate } from '../birth-date.parser';
import { toIsoAlpha2 } from '../countries';
import type { BirthDate, ListSnapshot, SanctionsEntry, SanctionsName } from '../../../entities/list-snapshot.document';
import { child, childrenNamed, flattenExtra, textOf, type ListInput, type XmlNode } from '../xml-records.reader';
import { loadXmlList } from './xml-list';

const USED = new Set(['DATAID', 'FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME', 'NAME_ORIGINAL_SCRIPT', 'UN_LIST_TYPE', 'LISTED_ON', 'NATIONALITY', 'INDIVIDUAL_ALIAS', 'ENTITY_ALIAS', 'INDIVIDUAL_DATE_OF_BIRTH', 'INDIVIDUAL_PLACE_OF_BIRTH', 'INDIVIDUAL_DOCUMENT']);

function birthOf(d: XmlNode): BirthDate | undefined {
  const type = textOf(d, 'TYPE_OF_DATE').toUpperCase();
  const from = textOf(d, 'FROM_YEAR');
  const to = textOf(d, 'TO_YEAR');
  if (from || to) return { kind: 'range', from: from || to, to: to || from, raw: `${from}-${to}` };
  const date = textOf(d, 'DATE');
  const year = textOf(d, 'YEAR');
  const parsed = parseBirthDate(date || year);
  if (!parsed) return undefined;
  return type === 'APPROXIMATELY' ? { ...parsed, kind: 'approx' } : parsed;
}

function toEntry(node: XmlNode): SanctionsEntry {
  const id = textOf(node, 'DATAID');
  if (!id) throw new Error(`${node.name} without <DATAID>`);
  const person = node.name === 'INDIVIDUAL';
  // The order of FIRST..FOURTH_NAME is not reliably given/family, so the whole name is kept in order.
  const parts = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'].map((k) => textOf(node, k)).filter(Boolean);
  const names: SanctionsName[] = [{ full: parts.join(' '), strength: 'strong', kind: 'primary' }];
  const original = textOf(node, 'NAME_ORIGINAL_SCRIPT');
  if (original) names.push({ full: original, strength: 'strong', kind: 'original_script' });
  for (const a of childrenNamed(node, person ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS')) {
    const full = textOf(a, 'ALIAS_NAME');
    if (!full) continue;
    const q = textOf(a, 'QUALITY').toLowerCase();
    names.push({ full, strength: q === 'low' ? 'weak' : 'strong', kind: q === 'f.k.a.' ? 'fka' : 'aka' });
  }
  const extra = flattenExtra(node, USED);
  const ref = textOf(node, 'REFERENCE_NUMBER');
  if (ref) extra.REFERENCE_NUMBER = ref;
  return {
    list: 'un',
    entry_id: id,
    // The permanent reference (QDi.335, CDi.008); the source sometimes pads it with a space.
    reference: ref || id,
    programme: textOf(node, 'UN_LIST_TYPE'),
    subject_type: person ? 'person' : 'organisation',
    names: names.filter((n) => n.full),
    birth_dates: childrenNamed(node, 'INDIVIDUAL_DATE_OF_BIRTH').map(birthOf).filter((b): b is BirthDate => !!b),
    nationalities: [...new Set(childrenNamed(child(node, 'NATIONALITY'), 'VALUE').map((v) => toIsoAlpha2(v.text)).filter((c): c is string => !!c))],
    places_of_birth: childrenNamed(node, 'INDIVIDUAL_PLACE_OF_BIRTH')
      .map((p) => ['CITY', 'STATE_PROVINCE', 'COUNTRY'].map((k) => textOf(p, k)).filter(Boolean).join(', '))
      .filter(Boolean),
    documents: childrenNamed(node, 'INDIVIDUAL_DOCUMENT')
      .filter((d) => textOf(d, 'NUMBER'))
      .map((d) => ({
        type: textOf(d, 'TYPE_OF_DOCUMENT'),
        number: textOf(d, 'NUMBER'),
        country: toIsoAlpha2(textOf(d, 'ISSUING_COUNTRY') || textOf(d, 'COUNTRY_OF_ISSUE')),
        note: textOf(d, 'NOTE') || undefined,
      })),
    listed_on: textOf(node, 'LISTED_ON') || undefined,
    extra,
  };
}

/** UN Security Council consolidated list XML (root `CONSOLIDATED_LIST`). */
export const loadUnConsolidatedXml = (input: ListInput, fileName: string): Promise<ListSnapshot> =>
  loadXmlList(input, fileName, { list: 'un', format: 'un_xml', roots: ['CONSOLIDATED_LIST'], records: ['INDIVIDUAL', 'ENTITY'], published: { rootAttribute: 'dateGenerated' }, toEntry });
