import type { BirthDate } from '../../entities/list-snapshot.document';

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
};

const pad = (n: number): string => String(n).padStart(2, '0');

function iso(y: number, m?: number, d?: number): string {
  return d ? `${y}-${pad(m ?? 1)}-${pad(d)}` : m ? `${y}-${pad(m)}` : String(y);
}

function validDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** One date expression to a BirthDate, or undefined when it names no usable year. */
export function parseBirthDate(input: string): BirthDate | undefined {
  const raw = input.replace(/_x000D_/g, ' ').trim();
  let s = raw.toLowerCase().replace(/\s+/g, ' ').replace(/[.;,]+$/, '').trim();
  if (!s) return undefined;
  const approx = /\b(circa|ca\.?|approx(imately|\.)?|about|around)\b/.test(s);
  s = s.replace(/\b(circa|ca\.?|approx(imately|\.)?|about|around)\b\.?/g, '').trim();

  let m = /^(?:between )?(\d{4}) ?(?:-|–|to|and) ?(\d{4})$/.exec(s);
  if (m) return { kind: 'range', from: m[1], to: m[2], raw };

  m = /^(\d{4})-(\d{2})-(\d{2})(?:t.*)?$/.exec(s);
  if (m) return exact(+m[1], +m[2], +m[3], raw, approx);

  m = /^(\d{1,2}|dd|00)[/.-](\d{1,2}|mm|00)[/.-](\d{4})$/.exec(s);
  if (m) {
    const y = +m[3];
    const d = Number(m[1]);
    const mo = Number(m[2]);
    if (!d || !mo) return mo ? { kind: 'month', from: iso(y, mo), to: iso(y, mo), raw } : year(y, raw, approx);
    return exact(y, mo, d, raw, approx);
  }

  m = /^(\d{1,2}) ([a-z]+)\.? (\d{4})$/.exec(s);
  if (m && MONTHS[m[2].slice(0, 3)]) return exact(+m[3], MONTHS[m[2].slice(0, 3)], +m[1], raw, approx);

  m = /^([a-z]+)\.? (\d{4})$/.exec(s);
  if (m && MONTHS[m[1].slice(0, 3)]) {
    const v = iso(+m[2], MONTHS[m[1].slice(0, 3)]);
    return { kind: approx ? 'approx' : 'month', from: v, to: v, raw };
  }

  m = /^(\d{4})$/.exec(s);
  if (m) return year(+m[1], raw, approx);
  return undefined;
}

function year(y: number, raw: string, approx: boolean): BirthDate {
  return { kind: approx ? 'approx' : 'year', from: String(y), to: String(y), raw };
}

function exact(y: number, mo: number, d: number, raw: string, approx: boolean): BirthDate | undefined {
  if (!validDay(y, mo, d)) return year(y, raw, true);
  const v = iso(y, mo, d);
  return { kind: approx ? 'approx' : 'exact', from: v, to: v, raw };
}

/**
 * Free text holding one or several dates ("a) 22 September 1975; b) 22 November 1975",
 * "1945, 1946, 1947", "Approximately 1955- 1958"). Unparseable parts are dropped here; the
 * loader keeps the raw text in `extra`.
 */
export function parseBirthDates(text: string | number | Date | null | undefined): BirthDate[] {
  if (text === null || text === undefined || text === '') return [];
  if (text instanceof Date) {
    const v = text.toISOString().slice(0, 10);
    return [{ kind: 'exact', from: v, to: v, raw: v }];
  }
  if (typeof text === 'number') return parseBirthDates(String(text));
  const pieces = text
    .replace(/_x000D_/g, '\n')
    .split(/\s*(?:\b[a-h]\)|\n|;|,(?=\s*\d{4}\b|\s*$)|\bor\b)\s*/i)
    .map((p) => p.trim())
    .filter(Boolean);
  const out: BirthDate[] = [];
  for (const piece of pieces) {
    const parsed = parseBirthDate(piece);
    if (parsed) out.push(parsed);
  }
  return out;
}

/** The inclusive year span a listed date allows, widened by one year for approximate dates. */
export function yearSpan(d: BirthDate): [number, number] {
  const from = Number(d.from.slice(0, 4));
  const to = Number(d.to.slice(0, 4));
  return d.kind === 'approx' ? [from - 1, to + 1] : [from, to];
}
