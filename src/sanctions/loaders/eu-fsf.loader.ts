import type { BirthDate, ListSnapshot, SanctionsEntry, SanctionsName, SubjectType } from '../../../entities/list-snapshot.document';
import { childrenNamed, child, flattenExtra, textOf, type ListInput, type XmlNode } from '../xml-records.reader';
import { loadXmlList } from './xml-list';

const SUBJECT: Record<string, SubjectType> = { person: 'person', enterprise: 'organisation' };
const USED = new Set(['regulation', 'subjectType', 'nameAlias', 'birthdate', 'citizenship', 'identification']);

function birthOf(b: XmlNode): BirthDate | undefined {
  const a = b.attrs;
  // Islamic-calendar years cannot be compared with Gregorian query dates.
  if (a.calendarType && a.calendarType !== 'GREGORIAN') return undefined;
  const circa = a.circa === 'true';
  if (a.birthdate) return { kind: circa ? 'approx' : 'exact', from: a.birthdate, to: a.birthdate, raw: a.birthdate };
  if (a.yearRangeFrom || a.yearRangeTo) {
    const from = a.yearRangeFrom || a.yearRangeTo;
    return { kind: 'range', from, to: a.yearRangeTo || from, raw: `${from}-${a.yearRangeTo || from}` };
  }
  if (a.year) {
    const v = a.monthOfYear ? `${a.year}-${a.monthOfYear.padStart(2, '0')}` : a.year;
    return { kind: circa ? 'approx' : a.monthOfYear ? 'month' : 'year', from: v, to: v, raw: v };
  }
  return undefined;
}

function toEntry(node: XmlNode): SanctionsEntry {
  const id = node.attrs.logicalId;
  if (!id) throw new Error('sanctionEntity without @logicalId');
  const names: SanctionsName[] = [];
  for (const alias of childrenNamed(node, 'nameAlias')) {
    const a = alias.attrs;
    const full = a.wholeName || [a.firstName, a.middleName, a.lastName].filter(Boolean).join(' ');
    if (!full.trim()) continue;
    const remark = textOf(alias, 'remark').toLowerCase();
    names.push({
      full,
      given: [a.firstName, a.middleName].filter(Boolean).join(' ') || undefined,
      family: a.lastName || undefined,
      strength: a.strong === 'false' || /low quality/.test(remark) ? 'weak' : 'strong',
      kind: names.length === 0 ? 'primary' : 'aka',
      lang: a.nameLanguage || undefined,
    });
  }
  const births = childrenNamed(node, 'birthdate');
  const regs = childrenNamed(node, 'regulation');
  const extra = flattenExtra(node, USED);
  for (const k of ['euReferenceNumber', 'unitedNationId', 'designationDetails']) if (node.attrs[k]) extra[k] = node.attrs[k];
  const islamic = births.filter((b) => b.attrs.calendarType && b.attrs.calendarType !== 'GREGORIAN');
  if (islamic.length) extra.birthdate_other_calendar = islamic.map((b) => `${b.attrs.calendarType}:${b.attrs.year || b.attrs.birthdate}`);
  return {
    list: 'eu',
    entry_id: id,
    // Entries listed before the EU numbered its references have only the logical id.
    reference: node.attrs.euReferenceNumber?.trim() || id,
    programme: [...new Set(regs.map((r) => r.attrs.programme).filter(Boolean))].join('; '),
    subject_type: SUBJECT[child(node, 'subjectType')?.attrs.code ?? ''] ?? 'unknown',
    names,
    birth_dates: births.map(birthOf).filter((b): b is BirthDate => !!b),
    nationalities: [...new Set(childrenNamed(node, 'citizenship').map((c) => c.attrs.countryIso2Code).filter((c) => c && c !== '00'))],
    places_of_birth: births
      .map((b) => [b.attrs.city, b.attrs.place, b.attrs.region, b.attrs.countryDescription].filter((v) => v && v !== '-' && v !== 'UNKNOWN').join(', '))
      .filter(Boolean),
    documents: childrenNamed(node, 'identification').map((d) => ({
      type: d.attrs.identificationTypeCode || d.attrs.identificationTypeDescription,
      number: d.attrs.number || d.attrs.latinNumber,
      country: d.attrs.countryIso2Code && d.attrs.countryIso2Code !== '00' ? d.attrs.countryIso2Code : undefined,
      note: [d.attrs.knownExpired === 'true' && 'known expired', d.attrs.knownFalse === 'true' && 'known false'].filter(Boolean).join(', ') || undefined,
    })),
    listed_on: node.attrs.designationDate || undefined,
    extra,
  };
}

/** EU Financial Sanctions Files, XML 1.1 (root `export`). */
export const loadEuFsfXml = (input: ListInput, fileName: string): Promise<ListSnapshot> =>
  loadXmlList(input, fileName, { list: 'eu', format: 'eu_fsf_xml', roots: ['export'], records: ['sanctionEntity'], published: { rootAttribute: 'generationDate' }, toEntry });
