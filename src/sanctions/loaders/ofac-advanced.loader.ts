import { toIsoAlpha2 } from '../countries';
import type { BirthDate, IdentityDocument, ListSnapshot, SanctionsEntry, SanctionsName, SubjectType } from '../../../entities/list-snapshot.document';
import { SanctionsLoadError } from '../sanctions-load.error';
import { child, childrenNamed, descendants, readXmlRecords, textOf, type ListInput, type XmlNode } from '../xml-records.reader';
import { snapshotOf } from './snapshot';

/** ID -> value tables of <ReferenceValueSets>, keyed by set ("AliasType", "FeatureType" ...). */
type RefTables = Map<string, Map<string, XmlNode>>;

function readRefs(node: XmlNode): RefTables {
  const tables: RefTables = new Map();
  for (const set of node.children) {
    const table = new Map<string, XmlNode>();
    for (const v of set.children) if (v.attrs.ID) table.set(v.attrs.ID, v);
    tables.set(set.name.replace(/Values$/, ''), table);
  }
  return tables;
}

function ymd(node: XmlNode | undefined): string | undefined {
  const y = textOf(node, 'Year');
  if (!y) return undefined;
  const m = textOf(node, 'Month');
  const d = textOf(node, 'Day');
  return m && d ? `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}` : y;
}

function birthDateOf(period: XmlNode): BirthDate | undefined {
  const start = ymd(child(child(period, 'Start'), 'From'));
  const end = ymd(child(child(period, 'End'), 'To')) ?? start;
  if (!start || !end) return undefined;
  const approx = child(period, 'Start')?.attrs.Approximate === 'true' || child(period, 'End')?.attrs.Approximate === 'true';
  const raw = start === end ? start : `${start}/${end}`;
  if (approx) return { kind: 'approx', from: start.slice(0, 4), to: end.slice(0, 4), raw };
  if (start === end) return { kind: 'exact', from: start, to: end, raw };
  if (start.slice(0, 4) === end.slice(0, 4) && start.endsWith('-01-01') && end.endsWith('-12-31')) return { kind: 'year', from: start.slice(0, 4), to: start.slice(0, 4), raw };
  return { kind: 'range', from: start.slice(0, 4), to: end.slice(0, 4), raw };
}

/** OFAC `sdn_advanced.xml` (root `Sanctions`): every ID resolved through ReferenceValueSets. */
export async function loadOfacAdvancedXml(input: ListInput, fileName: string): Promise<ListSnapshot> {
  let refs: RefTables = new Map();
  const locations = new Map<string, XmlNode>();
  const docsByIdentity = new Map<string, IdentityDocument[]>();
  const entries = new Map<string, SanctionsEntry>();
  let published: string | undefined;

  const ref = (set: string, id: string | undefined): XmlNode | undefined => (id ? refs.get(set)?.get(id) : undefined);
  const refText = (set: string, id: string | undefined): string => ref(set, id)?.text.trim() ?? '';
  const countryOf = (countryId: string | undefined): string | undefined => {
    const c = ref('Country', countryId) ?? ref('AreaCode', countryId);
    if (!c) return undefined;
    return c.attrs.ISO2 || toIsoAlpha2(c.text.trim()) || toIsoAlpha2(c.attrs.Description);
  };
  const locationCountry = (locationId: string | undefined): string | undefined => {
    const loc = locationId ? locations.get(locationId) : undefined;
    if (!loc) return undefined;
    const byId = countryOf(child(loc, 'LocationCountry')?.attrs.CountryID) ?? countryOf(child(loc, 'LocationAreaCode')?.attrs.AreaCodeID);
    if (byId && byId !== 'XX') return byId;
    for (const v of descendants(loc, 'Value')) {
      const c = toIsoAlpha2(v.text);
      if (c) return c;
    }
    return undefined;
  };

  const onParty = (party: XmlNode): void => {
    const profile = child(party, 'Profile');
    if (!profile?.attrs.ID) throw new Error('DistinctParty without Profile@ID');
    const sub = ref('PartySubType', profile.attrs.PartySubTypeID);
    const subText = sub?.text.trim() ?? '';
    const partyType = refText('PartyType', sub?.attrs.PartyTypeID);
    const subject: SubjectType = subText === 'Vessel' ? 'vessel' : subText === 'Aircraft' ? 'aircraft' : partyType === 'Individual' ? 'person' : partyType === 'Entity' ? 'organisation' : 'unknown';
    const names: SanctionsName[] = [];
    const extra: Record<string, string | string[]> = {};
    const identityIds: string[] = [];
    for (const identity of childrenNamed(profile, 'Identity')) {
      identityIds.push(identity.attrs.ID);
      const groups = new Map<string, string>();
      for (const g of descendants(identity, 'NamePartGroup')) groups.set(g.attrs.ID, refText('NamePartType', g.attrs.NamePartTypeID));
      for (const alias of childrenNamed(identity, 'Alias')) {
        const aliasType = refText('AliasType', alias.attrs.AliasTypeID).replace(/\./g, '').toLowerCase();
        for (const dn of childrenNamed(alias, 'DocumentedName')) {
          const parts = descendants(dn, 'NamePartValue');
          const byType = (t: string): string => parts.filter((p) => groups.get(p.attrs.NamePartGroupID) === t).map((p) => p.text.trim()).join(' ');
          const family = byType('Last Name');
          const given = [byType('First Name'), byType('Middle Name'), byType('Patronymic'), byType('Matronymic')].filter(Boolean).join(' ');
          const whole = parts.map((p) => p.text.trim()).join(' ');
          const script = refText('Script', parts[0]?.attrs.ScriptID) || undefined;
          names.push({
            full: family && given ? `${family}, ${given}` : whole,
            given: given || undefined,
            family: family || undefined,
            strength: alias.attrs.LowQuality === 'true' ? 'weak' : 'strong',
            kind: aliasType === 'name' ? (script && script !== 'Latin' ? 'original_script' : 'primary') : aliasType || 'aka',
            script,
          });
        }
      }
    }
    const birth: BirthDate[] = [];
    const pob: string[] = [];
    const nat = new Set<string>();
    for (const feature of childrenNamed(profile, 'Feature')) {
      const type = refText('FeatureType', feature.attrs.FeatureTypeID);
      for (const version of childrenNamed(feature, 'FeatureVersion')) {
        const detail = child(version, 'VersionDetail');
        const detailText = detail?.text.trim() || refText('DetailReference', detail?.attrs.DetailReferenceID);
        const locationId = child(version, 'VersionLocation')?.attrs.LocationID;
        if (type === 'Birthdate') {
          const period = child(version, 'DatePeriod');
          const d = period && birthDateOf(period);
          if (d) birth.push(d);
        } else if (type === 'Place of Birth') {
          if (detailText) pob.push(detailText);
        } else if (/^(Nationality|Citizenship)( Country)?$/.test(type)) {
          const c = locationCountry(locationId) ?? toIsoAlpha2(detailText);
          if (c) nat.add(c);
        } else if (type) {
          const value = detailText || (locationId ? `location:${locationId}` : '');
          if (value) {
            const k = `feature.${type}`;
            const prev = extra[k];
            extra[k] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
          }
        }
      }
    }
    const id = profile.attrs.ID;
    entries.set(id, {
      list: 'ofac',
      entry_id: id,
      reference: party.attrs.FixedRef || id, // OFAC's entry number: the uid of sdn.xml, ent_num of sdn.csv
      programme: '',
      subject_type: subject,
      names,
      birth_dates: birth,
      nationalities: [...nat],
      places_of_birth: pob,
      documents: identityIds.flatMap((i) => docsByIdentity.get(i) ?? []),
      extra,
    });
  };

  const onSanctionsEntry = (node: XmlNode): void => {
    const entry = entries.get(node.attrs.ProfileID);
    if (!entry) return;
    const programmes = childrenNamed(node, 'SanctionsMeasure')
      .filter((m) => refText('SanctionsType', m.attrs.SanctionsTypeID) === 'Program')
      .map((m) => textOf(m, 'Comment'))
      .filter(Boolean);
    entry.programme = [entry.programme, ...programmes].filter(Boolean).join('; ');
    const listed = ymd(child(child(node, 'EntryEvent'), 'Date'));
    if (listed && (!entry.listed_on || listed < entry.listed_on)) entry.listed_on = listed;
    const list = refText('List', node.attrs.ListID);
    if (list) entry.extra.list_name = list;
  };

  await readXmlRecords(input, fileName, {
    roots: new Set(['Sanctions']),
    records: new Set(['DateOfIssue', 'ReferenceValueSets', 'Location', 'IDRegDocument', 'DistinctParty', 'SanctionsEntry']),
    onRecord: (node) => {
      switch (node.name) {
        case 'DateOfIssue':
          published = ymd(node);
          break;
        case 'ReferenceValueSets':
          refs = readRefs(node);
          break;
        case 'Location':
          locations.set(node.attrs.ID, node);
          break;
        case 'IDRegDocument': {
          const doc: IdentityDocument = {
            type: refText('IDRegDocType', node.attrs.IDRegDocTypeID),
            number: textOf(node, 'IDRegistrationNo'),
            country: countryOf(node.attrs['IssuedBy-CountryID']),
          };
          const list = docsByIdentity.get(node.attrs.IdentityID) ?? [];
          list.push(doc);
          docsByIdentity.set(node.attrs.IdentityID, list);
          break;
        }
        case 'DistinctParty':
          if (refs.size === 0) throw new Error('DistinctParty before ReferenceValueSets');
          onParty(node);
          break;
        case 'SanctionsEntry':
          onSanctionsEntry(node);
          break;
      }
    },
  });
  if (entries.size === 0) throw new SanctionsLoadError(fileName, {}, 'no <DistinctParty> records found');
  return snapshotOf('ofac', 'ofac_advanced_xml', fileName, [...entries.values()], published);
}
