import { parse, type ParseResult } from 'mrz';
import type { DocumentReading, ModelRef, MrzFields, MrzFormat } from '../check-providers';
import type { Alternative, ReadLine } from './mrz-glyphs';

const SHAPES: { format: MrzFormat; lines: number; length: number }[] = [
  { format: 'TD3', lines: 2, length: 44 },
  { format: 'TD2', lines: 2, length: 36 },
  { format: 'TD1', lines: 3, length: 30 },
];

/** A line's characters with, position by position, the OCR's confidence and (when given) its other choices. */
type CharsRead = { text: string; conf: number[]; alts?: Alternative[][]; padFrom?: number };

const sliceAlts = (alts: Alternative[][] | undefined, from: number, to?: number) => (alts ? { alts: alts.slice(from, to) } : {});

/**
 * Every format's first line starts with the document code (A, C, I, P or V, ICAO 9303): characters before
 * it in an over-long first line are marks beside the zone read as letters.
 */
function withoutMarksBeforeCode(l: CharsRead, length: number): CharsRead {
  const excess = l.text.length - length;
  if (excess <= 0) return l;
  const start = Array.from({ length: excess + 1 }, (_, k) => k).find((k) => /^[ACIPV][A-Z<][A-Z<]{3}/.test(l.text.slice(k)));
  return start ? { text: l.text.slice(start), conf: l.conf.slice(start), ...sliceAlts(l.alts, start) } : l;
}

/**
 * A line brought to `length` by the filler only: trailing `<` removed (then the end cut) or added. An added
 * filler was not read (the OCR saw a shorter line: the end faded, the composite digit unseen), so `padFrom`
 * says where the padding starts and those positions abstain from every vote (mrz-votes.ts).
 */
function fitLength({ text, conf, alts }: CharsRead, length: number): CharsRead {
  if (text.length > length) {
    const trimmed = text.replace(/<+$/, (fill) => fill.slice(0, Math.max(0, fill.length - (text.length - length))));
    const kept = Math.min(trimmed.length, length);
    return { text: trimmed.slice(0, length), conf: conf.slice(0, kept), ...sliceAlts(alts, 0, kept) };
  }
  if (text.length === length) return { text, conf, ...(alts ? { alts } : {}) };
  const pad = length - text.length;
  return { text: text + '<'.repeat(pad), conf: [...conf, ...new Array<number>(pad).fill(1)], ...(alts ? { alts: [...alts, ...Array.from({ length: pad }, () => [])] } : {}), padFrom: text.length };
}

/** One line read alone (the name line, mrz-strip-variants.ts) shaped like line `index` of a `format` zone; undefined when too short to be it. */
export function shapeLine(read: ReadLine, format: MrzFormat, index: number): ReadLine | undefined {
  const shape = SHAPES.find((s) => s.format === format)!;
  const chars = [...read.text.toUpperCase()];
  const keep = chars.map((c) => /[A-Z0-9<?]/.test(c));
  let l: CharsRead = {
    text: chars.filter((_, i) => keep[i]).join(''),
    conf: chars.map((_, i) => read.confidences[i] ?? 1).filter((_, i) => keep[i]),
    ...(read.alternatives ? { alts: chars.map((_, i) => read.alternatives![i] ?? []).filter((_, i) => keep[i]) } : {}),
  };
  if (l.text.length < Math.max(20, shape.length * 0.6)) return undefined;
  if (index === 0) l = withoutMarksBeforeCode(l, shape.length);
  const fitted = fitLength(l, shape.length);
  return { text: fitted.text, confidences: fitted.conf, ...(fitted.alts ? { alternatives: fitted.alts } : {}), ...(fitted.padFrom !== undefined ? { padFrom: fitted.padFrom } : {}) };
}

/**
 * Turns OCR output into MRZ lines of the right shape: keeps lines of the MRZ alphabet (and `?`, a position
 * read as a split character, mrz-glyphs.ts) at least 20 characters long, picks the format by line count and length, and fixes each line's length by the
 * filler character only (trailing `<` removed or added). Characters are never guessed: a misread stays
 * a misread, and the check digits catch it. `read`, when given, holds the OCR's confidence in each character
 * of `ocrText`'s lines; the confidences returned follow the characters kept; `padFrom` is where each line's
 * added fillers start (undefined when none was added): those were not read, and abstain from the votes.
 */
export function normaliseMrzLines(
  ocrText: string,
  read?: ReadLine[],
): { format: MrzFormat; lines: string[]; confidences: number[][]; alternatives: (Alternative[][] | undefined)[]; padFrom: (number | undefined)[] } | undefined {
  const rawLines = ocrText.split('\n');
  const lines = rawLines
    .map((l, n) => {
      const chars = [...l.toUpperCase()];
      const keep = chars.map((c) => /[A-Z0-9<?]/.test(c));
      const same = read?.[n]?.text === l;
      const conf = same ? read[n].confidences : chars.map(() => 1);
      const alts = same ? read[n].alternatives : undefined;
      return { text: chars.filter((_, i) => keep[i]).join(''), conf: conf.filter((_, i) => keep[i]), ...(alts ? { alts: alts.filter((_, i) => keep[i]) } : {}) };
    })
    .filter((l) => l.text.length >= 20);
  if (lines.length < 2) return undefined;
  const candidates = SHAPES.filter((s) => lines.length >= s.lines).map((s) => {
    const chosen = lines.slice(-s.lines);
    const misfit = chosen.reduce((sum, l) => sum + Math.abs(l.text.length - s.length), 0);
    return { shape: s, chosen, misfit };
  });
  candidates.sort((a, b) => a.misfit - b.misfit);
  const { shape } = candidates[0];
  const chosen = candidates[0].chosen.map((l) => ({ ...l }));
  chosen[0] = withoutMarksBeforeCode(chosen[0], shape.length);
  const fitted = chosen.map((l) => fitLength(l, shape.length));
  return { format: shape.format, lines: fitted.map((l) => l.text), confidences: fitted.map((l) => l.conf), alternatives: fitted.map((l) => l.alts), padFrom: fitted.map((l) => l.padFrom) };
}

/** MRZ dates are YYMMDD: births lie in the past, expiries within a century around `now`. */
function isoDate(yymmdd: string | null | undefined, kind: 'birth' | 'expiry', now: Date): string {
  if (!yymmdd || !/^\d{6}$/.test(yymmdd)) return '';
  const yy = Number(yymmdd.slice(0, 2));
  const nowYY = now.getUTCFullYear() % 100;
  const century = Math.floor(now.getUTCFullYear() / 100) * 100;
  const year = kind === 'birth' ? (yy > nowYY ? century - 100 + yy : century + yy) : yy + (yy < nowYY - 50 ? century + 100 : century);
  return `${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}

const SEX: Record<string, MrzFields['sex']> = { male: 'M', female: 'F', nonspecified: 'X' };

export function mrzFields(result: ParseResult, format: MrzFormat, now: Date): MrzFields {
  const f = result.fields;
  return {
    format,
    documentType: f.documentCode ?? '',
    issuingState: f.issuingState ?? '',
    documentNumber: f.documentNumber ?? '',
    surname: f.lastName ?? '',
    givenNames: f.firstName ?? '',
    nationality: f.nationality ?? '',
    dateOfBirth: isoDate(f.birthDate, 'birth', now),
    sex: SEX[f.sex ?? ''] ?? 'X',
    expiryDate: isoDate(f.expirationDate, 'expiry', now),
  };
}

/**
 * Parses normalised lines with the `mrz` package (every check digit, state codes, dates), with its
 * positional autocorrection: in a field that can only hold digits (dates, check digits) an O reads as 0,
 * and in letter-only fields a 0 as O. Alphanumeric fields (the document number) are never corrected.
 * Returns the lines with those corrections applied.
 */
export function parseMrz(lines: string[]): { result: ParseResult; lines: string[] } {
  const result = parse(lines, { autocorrect: true });
  const fixed = lines.map((l) => l.split(''));
  for (const d of result.details) for (const a of d.autocorrect ?? []) if (fixed[a.line]?.[a.column] === a.original) fixed[a.line][a.column] = a.corrected;
  return { result, lines: fixed.map((l) => l.join('')) };
}

/** What failed, in words: one phrase per invalid field, as the `mrz` package names it. */
export function failedFields(result: ParseResult): string[] {
  return result.details.filter((d) => !d.valid).map((d) => `${d.label.toLowerCase()} (${d.error ?? 'invalid'})`);
}

/**
 * The `document_ocr` rule on recognised text, shared by the offline reader and the Textract adapter:
 * passes only when every check digit holds and the document has not expired at `now`; fails when a check
 * digit or a date fails; `review` when no MRZ lines were recognised at all.
 */
export function judgeMrzText(text: string, now: Date, model: ModelRef, details: Record<string, unknown> = {}): DocumentReading {
  const normalised = normaliseMrzLines(text);
  // Nothing read is no evidence against the document: a person reads it. Only a check digit or a date declines.
  if (!normalised)
    return { verdict: 'review', reason: 'The machine-readable zone could not be read (no MRZ lines recognised); a person should read the document.', model, details };
  const { result: parsed, lines } = parseMrz(normalised.lines);
  const fields = mrzFields(parsed, normalised.format, now);
  const mrz = { text: lines.join('\n'), fields };
  const checkDigits = parsed.details.filter((d) => /check digit/i.test(d.label));
  const score = checkDigits.length ? checkDigits.filter((d) => d.valid).length / checkDigits.length : 0;
  if (!parsed.valid)
    return { verdict: 'fail', score, reason: `The ${normalised.format} MRZ does not validate: ${failedFields(parsed).join('; ')}.`, model, mrz, details };
  const today = now.toISOString().slice(0, 10);
  if (!fields.expiryDate || fields.expiryDate < today) return { verdict: 'fail', score, reason: `The document expired on ${fields.expiryDate}.`, model, mrz, details };
  return { verdict: 'pass', score, reason: `Every check digit of the ${normalised.format} MRZ holds and the document is valid until ${fields.expiryDate}.`, model, mrz, details };
}
