import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { parseBirthDates } from '../birth-date.parser';
import { toIsoAlpha2 } from '../countries';
import type { IdentityDocument, ListSnapshot, SanctionsEntry, SubjectType } from '../../../entities/list-snapshot.document';
import { SanctionsLoadError } from '../sanctions-load.error';
import type { ListInput } from '../xml-records.reader';
import { snapshotOf } from './snapshot';

/** The legacy CSV set; only sdn.csv is required. Each value is one file's content. */
export interface OfacCsvFiles {
  sdn: ListInput;
  alt?: ListInput;
  add?: ListInput;
  comments?: ListInput;
}

const EMPTY = '-0-';
const clean = (v: string | undefined): string => (v === undefined || v.trim() === EMPTY ? '' : v.trim());

async function readRows(input: ListInput, fileName: string, minColumns: number): Promise<string[][]> {
  const source = typeof input === 'string' || Buffer.isBuffer(input) ? Readable.from([input]) : Readable.from(input as AsyncIterable<Buffer | string>);
  const parser = source.pipe(parse({ relax_column_count: true, skip_empty_lines: true, bom: true }));
  const rows: string[][] = [];
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      // The published files end with a single EOF marker byte (0x1A) on its own line.
      if (record.length === 1 && record[0].replace('\u001a', '').trim() === '') continue;
      if (record.length < minColumns) {
        throw new SanctionsLoadError(fileName, { line: parser.info.lines }, `expected at least ${minColumns} columns, found ${record.length}`);
      }
      rows.push(record);
    }
  } catch (err) {
    if (err instanceof SanctionsLoadError) throw err;
    const e = err as Error & { lines?: number; column?: number | string };
    throw new SanctionsLoadError(fileName, { line: e.lines ?? parser.info.lines }, e.message);
  }
  return rows;
}

const SUBJECT: Record<string, SubjectType> = { individual: 'person', vessel: 'vessel', aircraft: 'aircraft', '': 'organisation' };
const DOC = /^(passport|national id no\.?|identification number|cedula no\.?|ssn|d\.n\.i\.|curp|rfc|tax id no\.?|national identification number|id no\.?)\s+(\S+)(?:\s*\(([^)]*)\))?/i;

interface RemarkFacts {
  dobs: string[];
  pobs: string[];
  countries: string[];
  docs: IdentityDocument[];
  weakAkas: string[];
}

/** Remarks carry DOB, POB, documents and weak a.k.a.s as "; "-separated free text. */
function parseRemarks(remarks: string): RemarkFacts {
  const facts: RemarkFacts = { dobs: [], pobs: [], countries: [], docs: [], weakAkas: [] };
  for (const m of remarks.matchAll(/a\.k\.a\.\s+'([^']+)'/g)) facts.weakAkas.push(m[1]);
  for (const raw of remarks.split(/;\s*/)) {
    const part = raw.replace(/^alt\.\s+/i, '').replace(/\.$/, '').trim();
    let m: RegExpExecArray | null;
    if ((m = /^DOB\s+(.+)$/i.exec(part))) facts.dobs.push(m[1]);
    else if ((m = /^POB\s+(.+)$/i.exec(part))) facts.pobs.push(m[1]);
    else if ((m = /^(?:nationality|citizen(?:ship)?)\s+(.+)$/i.exec(part))) facts.countries.push(m[1]);
    else if ((m = DOC.exec(part))) facts.docs.push({ type: m[1], number: m[2], country: toIsoAlpha2(m[3]) ?? m[3] });
  }
  return facts;
}

/** OFAC legacy CSV set (sdn.csv, alt.csv, add.csv, sdn_comments.csv), no header rows. */
export async function loadOfacCsv(files: OfacCsvFiles, fileName: string): Promise<ListSnapshot> {
  const sdnRows = await readRows(files.sdn, `${fileName} (sdn.csv)`, 12);
  const alt = files.alt ? await readRows(files.alt, `${fileName} (alt.csv)`, 4) : [];
  const add = files.add ? await readRows(files.add, `${fileName} (add.csv)`, 5) : [];
  const comments = files.comments ? await readRows(files.comments, `${fileName} (sdn_comments.csv)`, 2) : [];

  const extraRemarks = new Map<string, string>();
  for (const [id, text] of comments) extraRemarks.set(id.trim(), (extraRemarks.get(id.trim()) ?? '') + clean(text));

  const entries = new Map<string, SanctionsEntry>();
  const warnings: string[] = [];
  for (const [i, row] of sdnRows.entries()) {
    const [id, name, type, program, title, callSign, vessType, tonnage, grt, flag, owner, remarksRaw] = row.map(clean);
    if (!/^\d+$/.test(id)) throw new SanctionsLoadError(`${fileName} (sdn.csv)`, { line: i + 1 }, `ent_num "${row[0]}" is not a number`);
    if (!name) throw new SanctionsLoadError(`${fileName} (sdn.csv)`, { line: i + 1 }, 'SDN_Name is empty');
    const remarks = remarksRaw + (extraRemarks.get(id) ?? '');
    const facts = parseRemarks(remarks);
    const extra: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries({ title, call_sign: callSign, vessel_type: vessType, tonnage, grt, vessel_flag: flag, vessel_owner: owner, remarks })) if (v) extra[k] = v;
    entries.set(id, {
      list: 'ofac',
      entry_id: id,
      reference: id, // ent_num: OFAC's entry number, the uid of the XML formats
      programme: program.split(/\]\s*\[/).map((p) => p.trim()).join('; '),
      subject_type: SUBJECT[type.toLowerCase()] ?? 'unknown',
      names: [
        { full: name, strength: 'strong', kind: 'primary' },
        ...facts.weakAkas.map((full) => ({ full, strength: 'weak' as const, kind: 'aka' })),
      ],
      birth_dates: facts.dobs.flatMap((d) => parseBirthDates(d)),
      nationalities: [...new Set(facts.countries.map((c) => toIsoAlpha2(c)).filter((c): c is string => !!c))],
      places_of_birth: facts.pobs,
      documents: facts.docs,
      extra,
    });
  }
  for (const [i, row] of alt.entries()) {
    const [id, , altType, altName, altRemarks] = row.map(clean);
    const entry = entries.get(id);
    if (!entry) {
      warnings.push(`${fileName} (alt.csv) line ${i + 1}: alias for ent_num ${id}, which sdn.csv does not hold`);
      continue;
    }
    if (altName) entry.names.push({ full: altName, strength: 'strong', kind: altType.toLowerCase() || 'aka' });
    if (altRemarks) pushExtra(entry, 'alt_remarks', altRemarks);
  }
  for (const [i, row] of add.entries()) {
    const [id, , address, cityState, country, addRemarks] = row.map(clean);
    const entry = entries.get(id);
    if (!entry) {
      warnings.push(`${fileName} (add.csv) line ${i + 1}: address for ent_num ${id}, which sdn.csv does not hold`);
      continue;
    }
    const text = [address, cityState, country, addRemarks].filter(Boolean).join(', ');
    if (text) pushExtra(entry, 'addresses', text);
  }
  if (entries.size === 0) throw new SanctionsLoadError(`${fileName} (sdn.csv)`, {}, 'no SDN rows found');
  return snapshotOf('ofac', 'ofac_csv', fileName, [...entries.values()], undefined, warnings);
}

function pushExtra(entry: SanctionsEntry, key: string, value: string): void {
  const prev = entry.extra[key];
  entry.extra[key] = prev === undefined ? [value] : Array.isArray(prev) ? [...prev, value] : [prev, value];
}
