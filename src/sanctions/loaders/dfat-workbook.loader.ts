import type ExcelJS from 'exceljs';
import { Readable } from 'node:stream';
import { parseBirthDates } from '../birth-date.parser';
import { countriesInText } from '../countries';
import type { ListSnapshot, SanctionsEntry, SanctionsName, SubjectType } from '../../../entities/list-snapshot.document';
import { SanctionsLoadError } from '../sanctions-load.error';
import type { ListInput } from '../xml-records.reader';
import { snapshotOf } from './snapshot';

/** Header names of both layouts (the Dec 2024 regulation8 file and the 2025+ workbook). */
const COLUMNS = {
  reference: 'reference',
  name: 'name of individual or entity',
  type: 'type',
  nameType: 'name type',
  strength: 'alias strength',
  dob: 'date of birth',
  pob: 'place of birth',
  citizenship: 'citizenship',
  committees: 'committees',
  controlDate: 'control date',
  listing: 'listing information',
} as const;
type Column = keyof typeof COLUMNS;
const REQUIRED: Column[] = ['reference', 'name', 'type', 'nameType', 'committees'];

const SUBJECT: Record<string, SubjectType> = { individual: 'person', entity: 'organisation', vessel: 'vessel' };

type Cell = ExcelJS.CellValue;

function cellText(v: Cell): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') {
    if ('richText' in v) return v.richText.map((r) => r.text).join('');
    if ('text' in v && typeof v.text === 'string') return v.text;
    if ('result' in v) return cellText(v.result as Cell);
    return '';
  }
  return String(v).replace(/_x000D_/g, '').trim();
}

function nameKind(v: string): string {
  const t = v.toLowerCase().trim();
  if (t.startsWith('primary')) return 'primary';
  if (t.startsWith('original')) return 'original_script';
  if (t.startsWith('formerly') || t.startsWith('previously')) return 'fka';
  return 'aka';
}

interface Block {
  ref: string;
  rows: Record<string, Cell>[];
  firstRow: number;
}

/**
 * DFAT consolidated list workbook, either layout. One row per name: rows are grouped into
 * designations by contiguous blocks of the numeric part of Reference ("2", "2a", "2b"),
 * because a reference number can be reused for an unrelated block later in the sheet.
 */
export async function loadDfatWorkbook(input: ListInput, fileName: string): Promise<ListSnapshot> {
  const stream = typeof input === 'string' || Buffer.isBuffer(input) ? Readable.from([input]) : Readable.from(input as AsyncIterable<Buffer | string>);
  // Loaded here, not at the top: 157 modules a server needs only when a DFAT list is loaded.
  const { default: Excel } = await import('exceljs');
  const reader = new Excel.stream.xlsx.WorkbookReader(stream, { sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', worksheets: 'emit', entries: 'ignore' });
  const blocks: Block[] = [];
  let header: Map<Column, number> | undefined;
  let rowNumber = 0;
  let sheetName: string | undefined;
  try {
    for await (const sheet of reader) {
      sheetName = (sheet as unknown as { name?: string }).name;
      for await (const row of sheet) {
        rowNumber = row.number;
        const values = row.values as Cell[];
        if (!header) {
          const found = new Map<Column, number>();
          values.forEach((v, i) => {
            const h = cellText(v).toLowerCase();
            for (const [col, label] of Object.entries(COLUMNS) as [Column, string][]) if (h === label) found.set(col, i);
          });
          const missing = REQUIRED.filter((c) => !found.has(c));
          if (missing.length) throw new SanctionsLoadError(fileName, { sheet: sheetName, row: row.number }, `header row lacks the column(s) ${missing.map((c) => `"${COLUMNS[c]}"`).join(', ')}`);
          header = found;
          continue;
        }
        const rec: Record<string, Cell> = {};
        for (const [col, i] of header) rec[col] = values[i];
        const refText = cellText(rec.reference);
        if (!refText && !cellText(rec.name)) continue;
        const m = /^(\d+)\s*[a-z]*$/i.exec(refText);
        if (!m) throw new SanctionsLoadError(fileName, { sheet: sheetName, row: row.number }, `Reference "${refText}" is not a DFAT reference (digits plus an optional letter)`);
        const last = blocks[blocks.length - 1];
        if (last && last.ref === m[1]) last.rows.push(rec);
        else blocks.push({ ref: m[1], rows: [rec], firstRow: row.number });
      }
      break; // the list is the first sheet; later sheets are notes
    }
  } catch (err) {
    if (err instanceof SanctionsLoadError) throw err;
    throw new SanctionsLoadError(fileName, { sheet: sheetName, row: rowNumber || undefined }, `unreadable workbook: ${(err as Error).message}`);
  }
  if (!header) throw new SanctionsLoadError(fileName, { row: 1 }, 'the workbook has no header row');
  const newLayout = header.has('strength');

  const warnings: string[] = [];
  const seen = new Map<string, number>();
  const entries: SanctionsEntry[] = [];
  for (const block of blocks) {
    const n = (seen.get(block.ref) ?? 0) + 1;
    seen.set(block.ref, n);
    if (n > 1) warnings.push(`${fileName} row ${block.firstRow}: reference ${block.ref} reused for a separate block; kept as ${block.ref}~${n}`);
    const first = block.rows[0];
    const text = (c: Column): string => cellText(first[c]);
    const type = block.rows.map((r) => cellText(r.type).toLowerCase()).find(Boolean) ?? '';
    const names: SanctionsName[] = block.rows
      .map((r) => ({
        full: cellText(r.name).replace(/\s+/g, ' ').trim(),
        strength: cellText(r.strength).toLowerCase() === 'weak' ? ('weak' as const) : ('strong' as const),
        kind: nameKind(cellText(r.nameType)),
      }))
      .filter((nm) => nm.full);
    const dobCell = first.dob;
    const extra: Record<string, string | string[]> = { layout: newLayout ? 'current' : 'regulation8' };
    for (const [k, v] of Object.entries(first)) if (!['name', 'nameType', 'strength', 'reference'].includes(k) && cellText(v)) extra[k] = cellText(v);
    entries.push({
      list: 'au',
      entry_id: n > 1 ? `${block.ref}~${n}` : block.ref,
      reference: block.ref, // DFAT's reference number (the letters of "2a", "2b" mark alias rows); entry_id adds ~n to a reused one
      programme: text('committees'),
      subject_type: SUBJECT[type] ?? 'unknown',
      names,
      birth_dates: parseBirthDates(typeof dobCell === 'number' || dobCell instanceof Date ? dobCell : cellText(dobCell)),
      nationalities: countriesInText(text('citizenship')),
      places_of_birth: text('pob') ? [text('pob')] : [],
      documents: [],
      listed_on: undefined,
      extra,
    });
  }
  if (entries.length === 0) throw new SanctionsLoadError(fileName, { row: rowNumber }, 'no designation rows found');
  return snapshotOf('au', 'dfat_xlsx', fileName, entries, undefined, warnings);
}
