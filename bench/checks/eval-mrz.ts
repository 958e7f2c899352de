import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DocumentReader, MrzFields, MrzFormat } from '../../src/checks/check-providers';
import { heldoutPhoto } from './heldout/heldout-photo';
import { heldoutDocuments, HELDOUT_SEED, type InvalidKind } from './heldout/heldout-set';
import { buildMrz, randomFields, seededRandom } from './mrz-lines';
import { handheldDegradation, randomDegradation, renderDocument } from './synthetic-document';

/** The tuning set's seed (the documents the reader was tuned on) and the held-out set's (never tuned on). */
export const TUNING_SEED = 20261123;
export { HELDOUT_SEED };

export type EvalSet = 'tuning' | 'heldout';
export type EvalKind = 'clean' | 'degraded' | 'handheld' | 'invalid';

/** One document of an evaluation: how it was made, what it says, and how to photograph it. */
export type MrzEvalJob = {
  set: EvalSet;
  kind: EvalKind;
  index: number;
  format: MrzFormat;
  /** The zone printed and the fields it holds (for an invalid document, the fields before the tampering). */
  lines: string[];
  fields: MrzFields;
  invalid?: InvalidKind;
  /** Held-out only: the effects, font, weight and renderer of the photo. */
  effects: string[];
  look?: { font: string; weight: string; renderer: string };
  /** Seed of the photo. */
  seed: number;
  photo(): Promise<{ bytes: Buffer; contentType: string }>;
};

export type MrzEvalRow = Omit<MrzEvalJob, 'photo' | 'fields'> & {
  verdict: string;
  reason: string;
  /** Passed with every field and every line read as printed. */
  exact: boolean;
  /** Passed with any field or line different from what was printed (the failure that matters). */
  wrongButPassed: boolean;
  ms: number;
  readings: number;
};

const FIELDS: (keyof MrzFields)[] = ['documentType', 'issuingState', 'documentNumber', 'surname', 'givenNames', 'nationality', 'dateOfBirth', 'sex', 'expiryDate'];

export type MrzEvalDocument = { index: number; set: EvalKind; fields: MrzFields; seed: number; invalid?: InvalidKind };

/** A check digit replaced by another digit: [line, column] of the document number's, per format. */
const DOCUMENT_NUMBER_DIGIT: Record<MrzFormat, [number, number]> = { TD1: [0, 14], TD2: [1, 9], TD3: [1, 9] };
const COMPOSITE_DIGIT: Record<MrzFormat, [number, number]> = { TD1: [1, 29], TD2: [1, 35], TD3: [1, 43] };

/**
 * The tuning set's documents in order: `perCell` per format, clean then degraded, then perCell/5 invalid
 * ones per format (a wrong document-number check digit, expired, a wrong composite digit), then `perCell`
 * hand-held photos per format (`handheldDegradation`). Every document
 * is drawn whichever sets run, so a document is the same in a partial run (and in `mrz-diag.ts`).
 */
export function evalDocuments(perCell: number, now: Date): MrzEvalDocument[] {
  const rand = seededRandom(TUNING_SEED);
  const all: MrzEvalDocument[] = [];
  for (const set of ['clean', 'degraded'] as const)
    for (const format of ['TD1', 'TD2', 'TD3'] as const)
      for (let i = 0; i < perCell; i++) all.push({ index: all.length, set, fields: randomFields(rand, format, now), seed: Math.floor(rand() * 2 ** 31) });
  for (const format of ['TD1', 'TD2', 'TD3'] as const)
    for (let i = 0; i < Math.ceil(perCell / 5); i++) {
      const invalid = (['check-digit', 'expired', 'composite'] as const)[i % 3];
      all.push({ index: all.length, set: 'invalid', invalid, fields: randomFields(rand, format, now, invalid === 'expired'), seed: Math.floor(rand() * 2 ** 31) });
    }
  // Hand-held photos (shadows, thin print, text above the zone, print on the table; added for issue 42's
  // second round) are drawn from their own seed, so the documents above stay what they were.
  const hand = seededRandom(TUNING_SEED + 1);
  for (const format of ['TD1', 'TD2', 'TD3'] as const)
    for (let i = 0; i < perCell; i++) all.push({ index: all.length, set: 'handheld', fields: randomFields(hand, format, now), seed: Math.floor(hand() * 2 ** 31) });
  return all;
}

/** The zone a tuning-set document prints: its fields', with one check digit changed on an invalid document. */
function tuningZone(job: MrzEvalDocument): string[] {
  const lines = buildMrz(job.fields);
  if (job.invalid !== 'check-digit' && job.invalid !== 'composite') return lines;
  const [line, col] = (job.invalid === 'check-digit' ? DOCUMENT_NUMBER_DIGIT : COMPOSITE_DIGIT)[job.fields.format];
  const other = String((Number(lines[line][col]) + 1 + (job.seed % 9)) % 10);
  return lines.map((l, i) => (i === line ? l.slice(0, col) + other + l.slice(col + 1) : l));
}

/** The photo of one tuning-set document, degraded as its set says (invalid documents: every other one). */
export function renderEvalDocument(job: MrzEvalDocument) {
  const r = seededRandom(job.seed);
  const degraded = job.set === 'degraded' || (job.set === 'invalid' && job.seed % 2 === 0);
  return renderDocument(job.fields, job.set === 'handheld' ? handheldDegradation(r) : degraded ? randomDegradation(r) : {}, r, tuningZone(job));
}

export function tuningJobs(perCell: number, now: Date): MrzEvalJob[] {
  return evalDocuments(perCell, now).map((d) => ({
    set: 'tuning',
    kind: d.set,
    index: d.index,
    format: d.fields.format,
    lines: tuningZone(d),
    fields: d.fields,
    ...(d.invalid ? { invalid: d.invalid } : {}),
    effects: [],
    seed: d.seed,
    photo: () => renderEvalDocument(d),
  }));
}

/** The held-out set (bench/checks/heldout/): never used to tune the reader. */
export function heldoutJobs(now: Date, sizes?: { clean: number; degraded: number; invalid: number }, seed = HELDOUT_SEED): MrzEvalJob[] {
  return heldoutDocuments(now, sizes, seed).map((d) => ({
    set: 'heldout',
    kind: d.kind,
    index: d.index,
    format: d.format,
    lines: d.lines,
    fields: d.fields,
    ...(d.invalid ? { invalid: d.invalid } : {}),
    effects: d.effects,
    look: { font: d.font, weight: d.weight, renderer: d.renderer },
    seed: d.seed,
    photo: () => heldoutPhoto(d),
  }));
}

/**
 * The photo of a job, kept in EVAL_PHOTO_CACHE (a folder) when that is set: rendering a held-out photo costs
 * seconds of one core, and a run with the same EVAL_NOW draws the same documents. Keyed by everything that
 * makes the photo, so a changed generator renders anew.
 */
export async function cachedPhoto(job: Omit<MrzEvalJob, 'photo'>, photo: MrzEvalJob['photo']): Promise<{ bytes: Buffer; contentType: string }> {
  const dir = process.env.EVAL_PHOTO_CACHE;
  if (!dir) return photo();
  const key = createHash('sha256').update(JSON.stringify({ job, generator: GENERATOR_VERSION })).digest('hex').slice(0, 32);
  const file = path.join(dir, `${key}.json`);
  if (fs.existsSync(file)) {
    const { bytes, contentType } = JSON.parse(fs.readFileSync(file, 'utf8'));
    return { bytes: Buffer.from(bytes, 'base64'), contentType };
  }
  const out = await photo();
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ bytes: out.bytes.toString('base64'), contentType: out.contentType }));
  return out;
}

/** Changed with the photo generators, so EVAL_PHOTO_CACHE never serves an older photo. */
const GENERATOR_VERSION = 1;

/** True when every field read equals the field printed. */
export const fieldsExact = (read: MrzFields | undefined, printed: MrzFields) => !!read && FIELDS.every((f) => read[f] === printed[f]);

/**
 * Reads every job with `reader`, `concurrency` at a time, and scores it: exact when the check passes and
 * every field and line equals what was printed; wrong-but-passed when it passed with anything different
 * (an invalid document that passes is always wrong).
 */
export async function evaluateMrz(reader: DocumentReader, jobs: MrzEvalJob[], now: Date, concurrency: number, progress = (_done: number) => {}): Promise<MrzEvalRow[]> {
  const rows: MrzEvalRow[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { photo, fields, ...job } = jobs[next++];
      const doc = await cachedPhoto({ ...job, fields }, photo);
      const t = performance.now();
      const reading = await reader.read({ images: [doc], now });
      const ms = performance.now() - t;
      const same = job.kind !== 'invalid' && fieldsExact(reading.mrz?.fields, fields) && reading.mrz?.text === job.lines.join('\n');
      const passed = reading.verdict === 'pass';
      rows.push({ ...job, verdict: reading.verdict, reason: reading.reason, exact: passed && same, wrongButPassed: passed && !same, ms, readings: Number(reading.details?.readings ?? 0) });
      progress(rows.length);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return rows.sort((a, b) => (a.set === b.set ? a.index - b.index : a.set < b.set ? 1 : -1));
}
