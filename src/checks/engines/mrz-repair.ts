import { parseMrz } from './mrz-text';

/**
 * OCR-B look-alikes between letters and digits whose MRZ values differ by other than a multiple of 10, so a
 * check digit tells them apart (O = 24 and 0 = 0; I = 18 and 1; B = 11 and 8; S = 28 and 5; Z = 35 and 2).
 * G and 6 (16 and 6) or L and 1 (21 and 1) are left out: a check digit cannot tell them apart, so it could
 * never confirm such a repair.
 */
const LOOKALIKE: Record<string, string> = { O: '0', '0': 'O', I: '1', '1': 'I', B: '8', '8': 'B', S: '5', '5': 'S', Z: '2', '2': 'Z' };

/** Fields that may hold letters and digits and are protected by a check digit (numeric fields the `mrz` parser already corrects). */
const ALPHANUMERIC_FIELD = /^(documentNumber|optional\d?|personalNumber)$/;

export type MrzRepair = { lines: string[]; line: number; column: number; read: string; repaired: string };

/**
 * Repairs one character of a zone whose check digits fail, by position (ICAO 9303 field formats): a
 * single misread lies in every failing check digit's field and in none whose check digit holds, and only
 * alphanumeric fields are considered (digits-only and letters-only fields are corrected by the parser).
 * The repair is made only when exactly one character in those positions has a look-alike: then there is
 * one hypothesis, and it is kept only if every check digit holds with it. Trying several ambiguous
 * characters and keeping the one that fits would let a check digit (one chance in ten) pick a wrong value;
 * with one hypothesis, a misread that is not a look-alike is turned into a passing wrong value only if that
 * one substitution happens to satisfy the check digit, at most one time in nine (the substitution must add
 * exactly the missing residue modulo 10).
 */
export function repairOneCharacter(lines: string[]): MrzRepair | undefined {
  const { result } = parseMrz(lines);
  const checks = result.details.filter((d) => /check digit/i.test(d.label));
  const failing = checks.filter((d) => !d.valid);
  if (failing.length === 0) return undefined;
  const key = (line: number, column: number) => `${line}:${column}`;
  const covered = (d: (typeof checks)[number]) => new Set(d.ranges.slice(1).flatMap((r) => Array.from({ length: r.end - r.start }, (_, i) => key(r.line, r.start + i))));
  const holding = new Set(checks.filter((d) => d.valid).flatMap((d) => [...covered(d)]));
  const inEveryFailing = failing.map(covered).reduce((a, b) => new Set([...a].filter((k) => b.has(k))));
  const candidates = result.details
    .filter((d) => ALPHANUMERIC_FIELD.test(d.field ?? ''))
    .flatMap((d) => Array.from({ length: d.end - d.start }, (_, i) => ({ line: d.line, column: d.start + i })))
    .filter(({ line, column }) => inEveryFailing.has(key(line, column)) && !holding.has(key(line, column)) && LOOKALIKE[lines[line][column]] !== undefined);
  if (candidates.length !== 1) return undefined;
  const { line, column } = candidates[0];
  const read = lines[line][column];
  const repaired = LOOKALIKE[read];
  const fixed = lines.map((l, i) => (i === line ? l.slice(0, column) + repaired + l.slice(column + 1) : l));
  if (!parseMrz(fixed).result.details.filter((d) => /check digit/i.test(d.label)).every((d) => d.valid)) return undefined;
  return { lines: fixed, line, column, read, repaired };
}
