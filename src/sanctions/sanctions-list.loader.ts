import type { ListFormat, ListId, ListSnapshot } from '../../entities/list-snapshot.document';
import { SanctionsLoadError } from './sanctions-load.error';
import type { ListInput } from './xml-records.reader';
import { loadDfatWorkbook } from './loaders/dfat-workbook.loader';
import { loadEuFsfXml } from './loaders/eu-fsf.loader';
import { loadOfacAdvancedXml } from './loaders/ofac-advanced.loader';
import { loadOfacCsv, type OfacCsvFiles } from './loaders/ofac-csv.loader';
import { loadOfacXml } from './loaders/ofac-xml.loader';
import { loadUkSanctionsXml } from './loaders/uk-sanctions.loader';
import { loadUnConsolidatedXml } from './loaders/un-consolidated.loader';

export type { ListInput } from './xml-records.reader';
export type { OfacCsvFiles } from './loaders/ofac-csv.loader';

const FORMATS_BY_LIST: Record<ListId, ListFormat[]> = {
  ofac: ['ofac_xml', 'ofac_advanced_xml', 'ofac_csv'],
  eu: ['eu_fsf_xml'],
  uk: ['uk_xml'],
  un: ['un_xml'],
  au: ['dfat_xlsx'],
};

/** Every format but the OFAC CSV set is one file. */
const ONE_FILE_LOADERS: Record<Exclude<ListFormat, 'ofac_csv'>, (data: ListInput, fileName: string) => Promise<ListSnapshot>> = {
  ofac_xml: loadOfacXml,
  ofac_advanced_xml: loadOfacAdvancedXml,
  eu_fsf_xml: loadEuFsfXml,
  uk_xml: loadUkSanctionsXml,
  un_xml: loadUnConsolidatedXml,
  dfat_xlsx: loadDfatWorkbook,
};

function isCsvSet(data: unknown): data is OfacCsvFiles {
  return typeof data === 'object' && data !== null && !Buffer.isBuffer(data) && 'sdn' in data;
}

/** Sniffs the format from the first bytes: xlsx is a zip, XML is told apart by its root. */
export function detectFormat(list: ListId, fileName: string, head: Buffer | string): ListFormat {
  const text = typeof head === 'string' ? head.slice(0, 4096) : head.subarray(0, 4096).toString('utf8');
  if (typeof head !== 'string' && head[0] === 0x50 && head[1] === 0x4b) return 'dfat_xlsx';
  if (/<sdnList[\s>]/.test(text)) return 'ofac_xml';
  if (/<Sanctions[\s>]/.test(text)) return 'ofac_advanced_xml';
  if (/<export[\s>]/.test(text)) return 'eu_fsf_xml';
  if (/<Designations[\s>]/.test(text)) return 'uk_xml';
  if (/<CONSOLIDATED_LIST[\s>]/.test(text)) return 'un_xml';
  if (list === 'ofac' && /\.csv$/i.test(fileName)) return 'ofac_csv';
  throw new SanctionsLoadError(fileName, { line: 1 }, `cannot tell the format of this ${list} file from its content`);
}

/**
 * Loads one official list file into a snapshot. `format: 'auto'` sniffs Buffers and strings;
 * a stream needs an explicit format. The OFAC CSV set is passed as `{ sdn, alt, add, comments }`.
 * Any defect rejects with SanctionsLoadError, so the caller keeps the previous snapshot.
 */
export async function loadList(list: ListId, format: ListFormat | 'auto', fileName: string, data: ListInput | OfacCsvFiles): Promise<ListSnapshot> {
  let resolved: ListFormat;
  if (format !== 'auto') resolved = format;
  else if (isCsvSet(data)) resolved = 'ofac_csv';
  else if (typeof data === 'string' || Buffer.isBuffer(data)) resolved = detectFormat(list, fileName, data);
  else throw new SanctionsLoadError(fileName, {}, 'format "auto" needs a Buffer or string; give the format for a stream');
  if (!FORMATS_BY_LIST[list].includes(resolved)) {
    throw new SanctionsLoadError(fileName, {}, `format ${resolved} is not a format of the ${list} list (expected ${FORMATS_BY_LIST[list].join(', ')})`);
  }
  if (resolved === 'ofac_csv') return loadOfacCsv(isCsvSet(data) ? data : { sdn: data }, fileName);
  if (isCsvSet(data)) throw new SanctionsLoadError(fileName, {}, `format ${resolved} takes one file, not a CSV set`);
  return ONE_FILE_LOADERS[resolved](data, fileName);
}
