/**
 * Development aid for the MRZ reader: reads a seeded subset of the evaluation's documents in this process
 * (no worker pool) and prints, per document, what was printed, what was read and the verdict.
 * Env: DIAG_SET (clean|degraded, default degraded), DIAG_FROM, DIAG_COUNT, DIAG_VERBOSE.
 */
import type { MrzFields } from '../../src/checks/check-providers';
import { MrzDocumentReader } from '../../src/checks/engines/mrz-document.reader';
import { MrzOcr } from '../../src/checks/engines/mrz-ocr';
import { randomFields, seededRandom } from './mrz-lines';
import { randomDegradation, renderDocument } from './synthetic-document';

const FIELDS: (keyof MrzFields)[] = ['documentType', 'issuingState', 'documentNumber', 'surname', 'givenNames', 'nationality', 'dateOfBirth', 'sex', 'expiryDate'];

async function main() {
  const now = new Date('2026-11-23T12:00:00Z');
  const set = process.env.DIAG_SET ?? 'degraded';
  const from = Number(process.env.DIAG_FROM ?? 0);
  const count = Number(process.env.DIAG_COUNT ?? 30);
  const rand = seededRandom(Number(process.env.DIAG_SEED ?? 20261123));
  const jobs: { fields: MrzFields; seed: number }[] = [];
  for (let i = 0; i < from + count; i++) {
    const format = (['TD1', 'TD2', 'TD3'] as const)[i % 3];
    jobs.push({ fields: randomFields(rand, format, now), seed: Math.floor(rand() * 2 ** 31) });
  }
  const ocr = await MrzOcr.start();
  const reader = new MrzDocumentReader({
    read: async (png, mode) => {
      const r = await ocr.read(png, mode);
      if (process.env.DIAG_TEXTS) console.log(`  [${mode}] ${r.text.trim().split('\n').join(' | ')}`);
      return r;
    },
  });
  let exact = 0;
  let wrongPassed = 0;
  const times: number[] = [];
  for (const [i, job] of jobs.slice(from).entries()) {
    const r = seededRandom(job.seed);
    const doc = await renderDocument(job.fields, set === 'degraded' ? randomDegradation(r) : {}, r);
    const t = performance.now();
    const reading = await reader.read({ images: [doc], now });
    times.push(performance.now() - t);
    const same = !!reading.mrz && FIELDS.every((f) => reading.mrz!.fields[f] === job.fields[f]);
    const ok = reading.verdict === 'pass' && same;
    if (ok) exact++;
    if (reading.verdict === 'pass' && !same) wrongPassed++;
    if (!ok || process.env.DIAG_VERBOSE)
      console.log(`#${from + i} ${job.fields.format} ${reading.verdict}${reading.verdict === 'pass' && !same ? ' WRONG-PASSED' : ''} ${Math.round(times[times.length - 1])}ms ${reading.reason}\n  printed ${doc.mrz.join(' | ')}\n  read    ${(reading.mrz?.text ?? '').split('\n').join(' | ')}\n  ${JSON.stringify(reading.details)}`);
  }
  times.sort((a, b) => a - b);
  console.log(`exact ${exact}/${jobs.length - from}, wrong-but-passed ${wrongPassed}, p50 ${Math.round(times[Math.floor(times.length / 2)])} ms, max ${Math.round(times[times.length - 1])} ms`);
  await ocr.close();
}
void main();
