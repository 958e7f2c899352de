import { parseBirthDates } from '../birth-date.parser';
import { toIsoAlpha2 } from '../countries';
import type { ListSnapshot, SanctionsEntry, SanctionsName, SubjectType } from '../../../entities/list-snapshot.document';
import { child, childrenNamed, flattenExtra, textOf, type ListInput, type XmlNode } from '../xml-records.reader';
import { usDateToIso } from './snapshot';
import { loadXmlList } from './xml-list';

const SUBJECT: Record<string, SubjectType> = {
  individual: 'person', entity: 'organisation', vessel: 'vessel', aircraft: 'aircraft',
};

/** "SURNAME, Given" is how OFAC writes individuals; entities have only lastName. */
function ofacName(first: string, last: string): string {
  return first ? `${last}, ${first}` : last;
}

const USED = new Set(['uid', 'firstName', 'lastName', 'sdnType', 'programList', 'akaList', 'dateOfBirthList', 'placeOfBirthList', 'nationalityList', 'citizenshipList', 'idList']);

function toEntry(node: XmlNode): SanctionsEntry {
  const uid = textOf(node, 'uid');
  if (!uid) throw new Error('sdnEntry without <uid>');
  const type = textOf(node, 'sdnType').toLowerCase();
  const first = textOf(node, 'firstName');
  const last = textOf(node, 'lastName');
  const names: SanctionsName[] = [{ full: ofacName(first, last), given: first || undefined, family: last || undefined, strength: 'strong', kind: 'primary' }];
  for (const aka of childrenNamed(child(node, 'akaList'), 'aka')) {
    const f = textOf(aka, 'firstName');
    const l = textOf(aka, 'lastName');
    if (!f && !l) continue;
    names.push({
      full: ofacName(f, l),
      given: f || undefined,
      family: l || undefined,
      strength: textOf(aka, 'category').toLowerCase() === 'weak' ? 'weak' : 'strong',
      kind: textOf(aka, 'type').replace(/\./g, '').toLowerCase() || 'aka',
    });
  }
  const nationalities = new Set<string>();
  for (const n of childrenNamed(child(node, 'nationalityList'), 'nationality')) {
    const c = toIsoAlpha2(textOf(n, 'country'));
    if (c) nationalities.add(c);
  }
  for (const n of childrenNamed(child(node, 'citizenshipList'), 'citizenship')) {
    const c = toIsoAlpha2(textOf(n, 'country'));
    if (c) nationalities.add(c);
  }
  return {
    list: 'ofac',
    entry_id: uid,
    reference: uid, // OFAC's entry number (the ent_num of the CSV set, the Profile ID of sdn_advanced.xml)
    programme: childrenNamed(child(node, 'programList'), 'program').map((p) => p.text.trim()).join('; '),
    subject_type: SUBJECT[type] ?? 'unknown',
    names,
    birth_dates: childrenNamed(child(node, 'dateOfBirthList'), 'dateOfBirthItem').flatMap((d) => parseBirthDates(textOf(d, 'dateOfBirth'))),
    nationalities: [...nationalities],
    places_of_birth: childrenNamed(child(node, 'placeOfBirthList'), 'placeOfBirthItem').map((p) => textOf(p, 'placeOfBirth')).filter(Boolean),
    documents: childrenNamed(child(node, 'idList'), 'id').map((id) => ({
      type: textOf(id, 'idType'),
      number: textOf(id, 'idNumber'),
      country: toIsoAlpha2(textOf(id, 'idCountry')) ?? (textOf(id, 'idCountry') || undefined),
    })),
    extra: flattenExtra(node, USED),
  };
}

/** OFAC `sdn.xml` / `consolidated.xml` (root `sdnList`). */
export const loadOfacXml = (input: ListInput, fileName: string): Promise<ListSnapshot> =>
  loadXmlList(input, fileName, { list: 'ofac', format: 'ofac_xml', roots: ['sdnList'], records: ['sdnEntry'], published: { header: 'Publish_Date', toIso: usDateToIso }, toEntry });
