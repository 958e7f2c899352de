import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { type StoredSanctionsEntry, withReferences } from '../../entities/list-reference';
import { loadList } from './sanctions-list.loader';
import { SanctionsLoadError } from './sanctions-load.error';
import type { ListSnapshot } from '../../entities/list-snapshot.document';

const FIXTURES = join(__dirname, '..', '..', 'test', 'fixtures', 'sanctions');
const read = (f: string): Buffer => readFileSync(join(FIXTURES, f));
const entry = (s: ListSnapshot, id: string) => {
  const e = s.entries.find((x) => x.entry_id === id);
  if (!e) throw new Error(`no entry ${id}`);
  return e;
};

describe('sanctions list loaders', () => {
  it('reads the OFAC sdnList XML with weak aliases, year-only DOBs and the publish date', async () => {
    const s = await loadList('ofac', 'auto', 'consolidated_excerpt.xml', read('consolidated_excerpt.xml'));
    expect(s.format).toBe('ofac_xml');
    expect(s.entries).toHaveLength(40);
    expect(s.published_at).toBe('2024-05-06');
    const haniya = entry(s, '9639');
    expect(haniya).toMatchObject({ subject_type: 'person', programme: 'NS-PLC', places_of_birth: ['Shati'] });
    expect(haniya.names[0]).toMatchObject({ full: 'HANIYA, Ismail Abdul Salah', family: 'HANIYA', strength: 'strong', kind: 'primary' });
    expect(haniya.birth_dates).toEqual([{ kind: 'year', from: '1962', to: '1962', raw: '1962' }]);
    expect(s.entries.some((e) => e.names.some((n) => n.strength === 'weak'))).toBe(true);
  });

  it('reads the OFAC legacy CSV set, taking weak a.k.a.s, DOB and passports from the remarks', async () => {
    const s = await loadList('ofac', 'auto', 'sdn.csv', { sdn: read('sdn.csv'), alt: read('alt.csv'), add: read('add.csv'), comments: read('sdn_comments.csv') });
    expect(s.entries).toHaveLength(17);
    const logan = entry(s, '10278');
    expect(logan.names.map((n) => [n.full, n.strength])).toEqual([['LOGAN MOREY, Elvis Angus', 'strong'], ['BURTON BURGESS', 'weak']]);
    expect(logan.birth_dates[0]).toMatchObject({ kind: 'exact', from: '1963-07-28' });
    expect(logan.documents).toContainEqual({ type: 'Passport', number: 'P0017003', country: 'BZ' });
    expect(entry(s, '11195').programme).toBe('NPWMD; IFSR; IRAN-CON-ARMS-EO');
    expect(entry(s, '11195').names.some((n) => n.full === 'HESA TRADE CENTER' && n.strength === 'strong')).toBe(true);
    // The excerpt has alias rows whose ent_num is not in sdn.csv: kept as warnings, not dropped silently.
    expect(s.warnings.some((w) => w.includes('alt.csv') && w.includes('10416'))).toBe(true);
  });

  it('resolves sdn_advanced.xml reference tables into names, scripts, DOB, nationality and programme', async () => {
    const s = await loadList('ofac', 'auto', 'sdn_advanced_excerpt.xml', read('sdn_advanced_excerpt.xml'));
    expect(s.format).toBe('ofac_advanced_xml');
    const zomor = entry(s, '2677');
    expect(zomor).toMatchObject({ subject_type: 'person', programme: 'SDGT', nationalities: ['EG'], places_of_birth: ['Nahia, Giza, Egypt'], listed_on: '1995-01-23' });
    expect(zomor.birth_dates).toEqual([{ kind: 'exact', from: '1947-04-19', to: '1947-04-19', raw: '1947-04-19' }]);
    expect(zomor.names).toContainEqual(expect.objectContaining({ full: 'الزمر, عبود عبداللطيف حسن', script: 'Arabic', kind: 'original_script' }));
    expect(zomor.extra['feature.Gender']).toBe('Male');
    expect(entry(s, '4238').subject_type).toBe('vessel');
    expect(entry(s, '15432').subject_type).toBe('aircraft');
  });

  it('reads EU FSF 1.1 with year ranges, low-quality remarks and non-Gregorian dates kept aside', async () => {
    const s = await loadList('eu', 'auto', 'fsf_1_1_excerpt.xml', read('fsf_1_1_excerpt.xml'));
    expect(s.published_at).toBe('2026-08-05');
    expect(entry(s, '521').birth_dates[0]).toMatchObject({ kind: 'range', from: '1953', to: '1958' });
    expect(entry(s, '521').nationalities).toEqual(['AF']);
    const withIslamic = s.entries.find((e) => e.extra.birthdate_other_calendar);
    expect(withIslamic).toBeDefined();
  });

  it('reads the UK Sanctions List with non-Latin names, dd/mm/yyyy DOBs, alias strength and de-duplicated passports', async () => {
    const s = await loadList('uk', 'auto', 'uk_sanctions_list_excerpt.xml', read('uk_sanctions_list_excerpt.xml'));
    const akhund = entry(s, 'AFG0006');
    expect(akhund.birth_dates.map((d) => d.kind)).toEqual(['exact', 'year', 'year']);
    expect(akhund.names).toContainEqual(expect.objectContaining({ full: 'محمد حسن آخوند', kind: 'original_script' }));
    expect(akhund.documents.filter((d) => d.type === 'passport')).toHaveLength(1);
    expect(akhund.nationalities).toEqual(['AF']);
    expect(s.entries.some((e) => e.names.some((n) => n.strength === 'weak'))).toBe(true);
    expect(s.entries.find((e) => e.subject_type === 'vessel')).toBeDefined();
  });

  it('reads the UN consolidated XML with BETWEEN/APPROXIMATELY dates and Low-quality aliases', async () => {
    const s = await loadList('un', 'auto', 'un_consolidated_excerpt.xml', read('un_consolidated_excerpt.xml'));
    expect(s.entries).toHaveLength(50);
    expect(s.entries.filter((e) => e.subject_type === 'organisation')).toHaveLength(15);
    const kinds = new Set(s.entries.flatMap((e) => e.birth_dates.map((d) => d.kind)));
    expect(kinds).toEqual(expect.objectContaining(new Set(['range', 'approx'])));
    expect(entry(s, '6907993').extra.REFERENCE_NUMBER).toBe('CDi.001');
    expect(s.entries.some((e) => e.names.some((n) => n.strength === 'weak'))).toBe(true);
  });

  it('groups DFAT workbook rows into designations in both column layouts', async () => {
    const current = await loadList('au', 'auto', 'current.xlsx', read('Australian_Sanctions_Consolidated_List_excerpt.xlsx'));
    expect(current.entries).toHaveLength(29);
    const akhund = entry(current, '2');
    expect(akhund.names.map((n) => n.kind)).toEqual(['primary', 'original_script']);
    expect(akhund.birth_dates.length).toBe(10);
    expect(entry(current, '7985').names.some((n) => n.full === 'Aqua' && n.strength === 'weak')).toBe(true);
    const old = await loadList('au', 'auto', 'regulation8.xlsx', read('regulation8_consolidated_excerpt.xlsx'));
    expect(old.entries).toHaveLength(33);
    expect(old.entries[0].extra.layout).toBe('regulation8');
    expect(entry(old, '327').birth_dates.map((d) => d.from)).toEqual(['1975-09-22', '1975-11-22']);
    expect(entry(old, '1927').nationalities).toEqual(['IR']);
    // "Congolese" names two countries, so it yields no code rather than a guess.
    expect(entry(old, '635').nationalities).toEqual([]);
  });

  it('streams XML from a Readable in small chunks with the same result as a Buffer', async () => {
    const buf = read('un_consolidated_excerpt.xml');
    const chunks: Buffer[] = [];
    for (let i = 0; i < buf.length; i += 777) chunks.push(buf.subarray(i, i + 777));
    const streamed = await loadList('un', 'un_xml', 'un.xml', Readable.from(chunks));
    const whole = await loadList('un', 'un_xml', 'un.xml', buf);
    expect(streamed.entries).toEqual(whole.entries);
    expect(streamed.version).toBe(whole.version);
  });

  it('rejects truncated XML with the file name and line', async () => {
    const text = read('uk_sanctions_list_excerpt.xml').toString('utf8');
    const broken = text.replace('</Designation>', '</Designatoin>');
    const err = await loadList('uk', 'auto', 'uk-broken.xml', Buffer.from(broken)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SanctionsLoadError);
    const e = err as SanctionsLoadError;
    expect(e.fileName).toBe('uk-broken.xml');
    expect(e.position.line).toBeGreaterThan(1);
    expect(e.message).toMatch(/^uk-broken\.xml:\d+:\d+: /);
  });

  it('rejects a file of another list, a corrupt workbook and a CSV row with a bad id', async () => {
    await expect(loadList('eu', 'auto', 'x.xml', read('un_consolidated_excerpt.xml'))).rejects.toThrow(SanctionsLoadError);
    await expect(loadList('eu', 'eu_fsf_xml', 'x.xml', read('un_consolidated_excerpt.xml'))).rejects.toThrow(/unexpected root element <CONSOLIDATED_LIST>/);
    const xlsx = read('regulation8_consolidated_excerpt.xlsx');
    await expect(loadList('au', 'dfat_xlsx', 'cut.xlsx', xlsx.subarray(0, 3000))).rejects.toThrow(SanctionsLoadError);
    const csv = read('sdn.csv').toString('utf8').replace(/^10278,/, 'x10278,');
    const err = (await loadList('ofac', 'ofac_csv', 'sdn.csv', { sdn: csv }).catch((e: unknown) => e)) as SanctionsLoadError;
    expect(err).toBeInstanceOf(SanctionsLoadError);
    expect(err.position.line).toBe(1);
  });

  describe("each hit's reference is the list's own, read from the official format", () => {
    /** Pairs two values that occur once per record, in document order, straight from the raw file. */
    const pairs = (text: string, record: RegExp): [string, string][] => [...text.matchAll(record)].map((m) => [m[1], m[2]]);

    it('UN: the permanent reference (CDi.001), not the DATAID', async () => {
      const text = read('un_consolidated_excerpt.xml').toString('utf8');
      const s = await loadList('un', 'auto', 'un.xml', Buffer.from(text));
      const expected = pairs(text, /<DATAID>(\d+)<\/DATAID>[\s\S]*?<REFERENCE_NUMBER>([^<]*)<\/REFERENCE_NUMBER>/g);
      expect(expected).toHaveLength(50);
      expect(s.entries.map((e) => [e.entry_id, e.reference])).toEqual(expected.map(([id, ref]) => [id, ref.trim()]));
      expect(entry(s, '6907993').reference).toBe('CDi.001');
      expect(s.entries.every((e) => /^[A-Z]{2}[ie]\.\d{3}$/.test(e.reference))).toBe(true);
    });

    it('EU: the EU reference (EU.3579.2), with the logical id kept as entry_id', async () => {
      const s = await loadList('eu', 'auto', 'fsf.xml', read('fsf_1_1_excerpt.xml'));
      expect(s.entries.map((e) => [e.entry_id, e.reference])).toEqual([
        ['191', 'EU.3579.2'],
        ['521', 'EU.502.12'],
        ['3822', 'EU.3953.70'],
        ['6106', 'EU.3886.3'],
        ['6177', 'EU.3092.36'],
      ]);
      // An entry the EU never numbered falls back to its logical id.
      const text = read('fsf_1_1_excerpt.xml').toString('utf8').replace('euReferenceNumber="EU.3579.2" ', '');
      expect(entry(await loadList('eu', 'auto', 'fsf.xml', Buffer.from(text)), '191').reference).toBe('191');
    });

    it('UK: the unique id (AFG0006)', async () => {
      const s = await loadList('uk', 'auto', 'uk.xml', read('uk_sanctions_list_excerpt.xml'));
      expect(s.entries.map((e) => e.reference)).toEqual(['AFG0001', 'AFG0006', 'BEL0107', 'DPR0075', 'AQD0195']);
    });

    it("OFAC: the entry number in all three formats (sdnList uid, sdn.csv ent_num, sdn_advanced FixedRef)", async () => {
      const xmlText = read('consolidated_excerpt.xml').toString('utf8');
      const xml = await loadList('ofac', 'auto', 'consolidated.xml', Buffer.from(xmlText));
      const uids = [...xmlText.matchAll(/<sdnEntry>\s*<uid>(\d+)<\/uid>/g)].map((m) => m[1]);
      expect(uids).toHaveLength(40);
      expect(xml.entries.map((e) => e.reference)).toEqual(uids);
      const csv = await loadList('ofac', 'auto', 'sdn.csv', { sdn: read('sdn.csv') });
      expect(entry(csv, '10278').reference).toBe('10278');
      const advanced = await loadList('ofac', 'auto', 'sdn_advanced.xml', read('sdn_advanced_excerpt.xml'));
      expect(advanced.entries.map((e) => e.reference)).toEqual(['36', '2677', '4238', '15432']);
    });

    it('DFAT: the reference number of the designation, without the alias-row letters', async () => {
      const current = await loadList('au', 'auto', 'current.xlsx', read('Australian_Sanctions_Consolidated_List_excerpt.xlsx'));
      expect(entry(current, '2').reference).toBe('2');
      expect(current.entries.every((e) => /^\d+$/.test(e.reference))).toBe(true);
      const old = await loadList('au', 'auto', 'regulation8.xlsx', read('regulation8_consolidated_excerpt.xlsx'));
      expect(entry(old, '327').reference).toBe('327');
    });

    it('versions stored before entries carried a reference get the same one when read back', async () => {
      for (const [list, file] of [['un', 'un_consolidated_excerpt.xml'], ['eu', 'fsf_1_1_excerpt.xml'], ['uk', 'uk_sanctions_list_excerpt.xml'], ['ofac', 'consolidated_excerpt.xml']] as const) {
        const fresh = await loadList(list, 'auto', file, read(file));
        const stored = JSON.parse(JSON.stringify(fresh.entries)) as StoredSanctionsEntry[];
        for (const e of stored) delete e.reference;
        expect(withReferences(stored).map((e) => e.reference)).toEqual(fresh.entries.map((e) => e.reference));
      }
    });
  });

  it('produces JSON-safe snapshots that survive a round trip unchanged', async () => {
    const s = await loadList('eu', 'auto', 'fsf_1_1_excerpt.xml', read('fsf_1_1_excerpt.xml'));
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});
