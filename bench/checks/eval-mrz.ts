import type { DocumentReader, MrzFields, MrzFormat } from '../../src/checks/check-providers';
import { randomFields, seededRandom } from './mrz-lines';
import { randomDegradation, renderDocument } from './synthetic-document';

export type MrzEvalRow = { set: 'clean' | 'degraded'; format: MrzFormat; exact: boolean; wrongButPassed: boolean; verdict: string; ms: number; readings: number };

const FIELDS: (keyof MrzFields)[] = ['documentType', 'issuingState', 'documentNumber', 'surname', 'givenNames', 'nationality', 'dateOfBirth', 'sex', 'expiryDate'];

export type MrzEvalDocument = { index: number; set: 'clean' | 'degraded'; fields: MrzFields; seed: number };

/**
 * The evaluation's documents in order: `perCell` per format, clean then degraded. Every document is drawn
 * whichever sets run, so a document is the same in a partial run (and in `mrz-diag.ts`).
 */
export function evalDocuments(perCell: number, now: Date): MrzEvalDocument[] {
  const rand = seededRandom(20261123);
  const all: MrzEvalDocument[] = [];
  for (const set of ['clean', 'degraded'] as const)
    for (const format of ['TD1', 'TD2', 'TD3'] as const)
      for (let i = 0; i < perCell; i++) all.push({ index: all.length, set, fields: randomFields(rand, format, now), seed: Math.floor(rand() * 2 ** 31) });
  return all;
}

/** The photo of one evaluation document, degraded as its set says. */
export function renderEvalDocument(job: MrzEvalDocument) {
  const r = seededRandom(job.seed);
  return renderDocument(job.fields, job.set === 'degraded' ? randomDegradation(r) : {}, r);
}

/** True when every field read equals the field printed. */
export const fieldsExact = (read: MrzFields | undefined, printed: MrzFields) => !!read && FIELDS.every((f) => read[f] === printed[f]);

/**
 * Renders `perCell` documents per format and condition (clean, degraded), reads each with `reader`, and
 * scores it: exact when the check passes and every field equals what was printed; wrong-but-passed when
 * the check passed with any field different (the failure that matters).
 */
export async function evaluateMrz(reader: DocumentReader, perCell: number, now: Date, concurrency: number, sets: string[] = ['clean', 'degraded']): Promise<MrzEvalRow[]> {
  const jobs = evalDocuments(perCell, now).filter((j) => sets.includes(j.set));
  const rows: MrzEvalRow[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const doc = await renderEvalDocument(job);
      const t = performance.now();
      const reading = await reader.read({ images: [doc], now });
      const ms = performance.now() - t;
      const same = fieldsExact(reading.mrz?.fields, job.fields);
      const passed = reading.verdict === 'pass';
      rows.push({ set: job.set, format: job.fields.format, exact: passed && same, wrongButPassed: passed && !same, verdict: reading.verdict, ms, readings: Number(reading.details?.readings ?? 0) });
      if (rows.length % 25 === 0) process.stderr.write(`mrz ${rows.length}/${jobs.length}\n`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return rows;
}
