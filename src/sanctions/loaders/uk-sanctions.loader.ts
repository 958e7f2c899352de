import { parseBirthDates } from '../birth-date.parser';
import { toIsoAlpha2 } from '../countries';
import type { IdentityDocument, ListSnapshot, SanctionsEntry, SanctionsName, SubjectType } from '../../../entities/list-snapshot.document';
import { child, childrenNamed, descendants, flattenExtra, textOf, type ListInput, type XmlNode } from '../xml-records.reader';
import { ukDateToIso } from './snapshot';
import { loadXmlList } from './xml-list';

const SUBJECT: Record<string, SubjectType> = { individual: 'person', entity: 'organisation', ship: 'vessel' };
const USED = new Set(['UniqueID', 'Names', 'NonLatinNames', 'RegimeName', 'IndividualEntityShip', 'DateDesignated', 'IndividualDetails']);

function nameOf(n: XmlNode): SanctionsName | undefined {
  const given = ['Name1', 'Name2', 'Name3', 'Name4', 'Name5'].map((k) => textOf(n, k)).filter(Boolean).join(' ');
  const family = textOf(n, 'Name6');
  const full = [given, family].filter(Boolean).join(' ');
  if (!full) return undefined;
  const type = textOf(n, 'NameType').toLowerCase();
  return {
    full,
    given: given || undefined,
    family: family || undefined,
    strength: /low quality/i.test(textOf(n, 'AliasStrength')) ? 'weak' : 'strong',
    kind: type === 'primary name' ? 'primary' : type === 'primary name variation' ? 'variation' : 'aka',
  };
}

function toEntry(node: XmlNode): SanctionsEntry {
  const id = textOf(node, 'UniqueID');
  if (!id) throw new Error('Designation without <UniqueID>');
  const names = childrenNamed(child(node, 'Names'), 'Name').map(nameOf).filter((n): n is SanctionsName => !!n);
  for (const nl of descendants(node, 'NameNonLatinScript')) {
    if (nl.text.trim()) names.push({ full: nl.text.trim(), strength: 'strong', kind: 'original_script' });
  }
  const individual = child(child(node, 'IndividualDetails'), 'Individual');
  const docs: IdentityDocument[] = [];
  const seen = new Set<string>();
  for (const p of descendants(individual ?? node, 'Passport')) {
    const num = textOf(p, 'PassportNumber');
    if (num && !seen.has(`p:${num}`)) {
      seen.add(`p:${num}`);
      docs.push({ type: 'passport', number: num, note: textOf(p, 'PassportAdditionalInformation') || undefined });
    }
  }
  for (const p of descendants(individual ?? node, 'NationalIdentifier')) {
    const num = textOf(p, 'NationalIdentifierNumber');
    if (num && !seen.has(`n:${num}`)) {
      seen.add(`n:${num}`);
      docs.push({ type: 'national_id', number: num, note: textOf(p, 'NationalIdentifierAdditionalInformation') || undefined });
    }
  }
  const extra = flattenExtra(node, USED);
  if (individual) Object.assign(extra, flattenExtra(individual, new Set(['DOBs', 'Nationalities', 'PassportDetails', 'NationalIdentifierDetails', 'BirthDetails']), 'Individual'));
  return {
    list: 'uk',
    entry_id: id,
    reference: id, // the UK Sanctions List unique id (RUS0001), what the FCDO search shows
    programme: textOf(node, 'RegimeName'),
    subject_type: SUBJECT[textOf(node, 'IndividualEntityShip').toLowerCase()] ?? 'unknown',
    names,
    birth_dates: descendants(individual ?? node, 'DOB').flatMap((d) => parseBirthDates(d.text)),
    nationalities: [...new Set(descendants(individual ?? node, 'Nationality').map((n) => toIsoAlpha2(n.text)).filter((c): c is string => !!c))],
    places_of_birth: descendants(individual ?? node, 'Location')
      .map((l) => [textOf(l, 'TownOfBirth'), textOf(l, 'CountryOfBirth')].filter(Boolean).join(', '))
      .filter(Boolean),
    documents: docs,
    listed_on: ukDateToIso(textOf(node, 'DateDesignated')),
    extra,
  };
}

/** UK Sanctions List XML from the FCDO (root `Designations`). */
export const loadUkSanctionsXml = (input: ListInput, fileName: string): Promise<ListSnapshot> =>
  loadXmlList(input, fileName, { list: 'uk', format: 'uk_xml', roots: ['Designations'], records: ['Designation'], published: { header: 'DateGenerated', toIso: ukDateToIso }, toEntry });
