import type { DocumentReader, MrzFields, MrzFormat } from '../../src/checks/check-providers';
import { randomFields, seededRandom } from './mrz-lines';
import { randomDegradation, renderDocument } from './synthetic-document';

export type MrzEvalRow = { set: 'clean' | 'degraded'; format: MrzFormat; exact: boolean; wrongButPassed: boolean; verdict: string; ms: number; readings: number };

const FIELDS: (keyof MrzFields)[] = ['documentType', 'issuingState', 'documentNumber', 'surname', 'givenNames', 'nationality', 'dateOfBirth', 'sex', 'expiryDate'];

/**
 * Renders `perCell` documents per format and condition (clean, degraded), reads each with `reader`, and
 * scores it: exact when the check passes and every field equals what was printed; wrong-but-passed when
 * the check passed with any field different (the failure that matters).
 */
export async function evaluateMrz(reader: DocumentReader, perCell: number, now: Date, concurrency: number, sets: string[] = ['clean', 'degraded']): Promise<MrzEvalRow[]> {
  const rand = seededRandom(20261123);
  const all: { set: 'clean' | 'degraded'; fields: MrzFields; seed: number }[] = [];
  for (const set of ['clean', 'degraded'] as const)
    for (const format of ['TD1', 'TD2', 'TD3'] as const)
      for (let i = 0; i < perCell; i++) all.push({ set, fields: randomFields(rand, format, now), seed: Math.floor(rand() * 2 ** 31) });
  // Every document is drawn whichever sets run, so a document is the same in a partial run.
  const jobs = all.filter((j) => sets.includes(j.set));
  const rows: MrzEvalRow[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const r = seededRandom(job.seed);
      const doc = await renderDocument(job.fields, job.set === 'degraded' ? randomDegradation(r) : {}, r);
      const t = performance.now();
      const reading = await reader.read({ images: [doc], now });
      const ms = performance.now() - t;
      const fieldsExact = !!reading.mrz && FIELDS.every((f) => reading.mrz!.fields[f] === job.fields[f]);
      const passed = reading.verdict === 'pass';
      rows.push({ set: job.set, format: job.fields.format, exact: passed && fieldsExact, wrongButPassed: passed && !fieldsExact, verdict: reading.verdict, ms, readings: Number(reading.details?.readings ?? 0) });
      if (rows.length % 25 === 0) process.stderr.write(`mrz ${rows.length}/${jobs.length}\n`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return rows;
}
