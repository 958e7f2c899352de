/**
 * Development aid for the MRZ reader: reads the tuning set's documents (the same seeded set as
 * `npm run eval:checks`, in its order) in this process (no worker pool) and prints, per document that is
 * not exact, what was printed, what was read, the verdict and every OCR reading.
 * With DIAG_SET=heldout.<kind> (clean|degraded|invalid) it reads the held-out generator's documents of
 * DIAG_HELDOUT_SEED (required: a seed drawn for tuning, never the one a report's figures are measured on;
 * DIAG_HELDOUT_PER_FORMAT as EVAL_HELDOUT_PER_FORMAT; EVAL_PHOTO_CACHE keeps the photos).
 * Env: DIAG_SET (clean|degraded|invalid|handheld, or heldout.<kind>; default degraded), DIAG_FROM, DIAG_COUNT (within the set; default
 * all of it), DIAG_NOW (the eval's `now`, default now), DIAG_VERBOSE (print every document),
 * DIAG_INDEXES (comma-separated document indexes), DIAG_DUMP (a folder the photos are written to),
 * DIAG_OCR_CACHE (a JSON file of the OCR's glyphs keyed by image hash and mode: a change after the OCR is
 * then measured in seconds; times are meaningless with it).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { MrzDocumentReader } from '../../src/checks/engines/mrz-document.reader';
import { lineOfGlyphs } from '../../src/checks/engines/mrz-glyphs';
import { MrzOcr } from '../../src/checks/engines/mrz-ocr';
import { cachedPhoto, fieldsExact, heldoutJobs, tuningJobs, type MrzEvalJob } from './eval-mrz';

async function main() {
  const now = process.env.DIAG_NOW ? new Date(process.env.DIAG_NOW) : new Date();
  const set = process.env.DIAG_SET ?? 'degraded';
  const from = Number(process.env.DIAG_FROM ?? 0);
  let jobs: MrzEvalJob[];
  if (set.startsWith('heldout.')) {
    const seed = Number(process.env.DIAG_HELDOUT_SEED);
    if (!seed) throw new Error('DIAG_HELDOUT_SEED is required with a held-out set (a tuning seed, never a reported one)');
    const [c, d, i] = (process.env.DIAG_HELDOUT_PER_FORMAT ?? '12,30,6').split(',').map(Number);
    jobs = heldoutJobs(now, { clean: c, degraded: d, invalid: i }, seed).filter((j) => j.kind === set.slice(8));
  } else jobs = tuningJobs(50, now).filter((j) => j.kind === set);
  const only = process.env.DIAG_INDEXES ? new Set(process.env.DIAG_INDEXES.split(',').map(Number)) : undefined;
  if (only) jobs = jobs.filter((j) => only.has(j.index));
  const count = Number(process.env.DIAG_COUNT ?? jobs.length - from);
  const cacheFile = process.env.DIAG_OCR_CACHE;
  const cache: Record<string, Awaited<ReturnType<MrzOcr['readGlyphs']>>> = cacheFile && fs.existsSync(cacheFile) ? JSON.parse(fs.readFileSync(cacheFile, 'utf8')) : {};
  let ocr: MrzOcr | undefined;
  let texts: string[] = [];
  let ocrCalls = 0;
  const reader = new MrzDocumentReader({
    read: async (png, mode) => {
      ocr ??= await MrzOcr.start();
      let r;
      if (cacheFile) {
        const key = `${createHash('sha1').update(png).digest('hex')}:${mode ?? 'block'}`;
        let glyphs = cache[key];
        if (!glyphs) {
          glyphs = cache[key] = await ocr.readGlyphs(png, mode);
          ocrCalls++;
        }
        const lines = glyphs.lines.map(lineOfGlyphs);
        r = { text: lines.map((l) => l.text).join('\n'), confidence: glyphs.confidence, lines };
      } else {
        // Without a cache, the production path, so the times are the reader's.
        r = await ocr.read(png, mode);
        ocrCalls++;
      }
      const unsure = (r.lines ?? []).flatMap((l) => [...l.text].flatMap((c, i) => (l.confidences[i] < 0.9 ? [`${c}@${i}:${Math.round(l.confidences[i] * 100)}`] : [])));
      texts.push(`[${mode ?? 'block'}] ${r.text.trim().split('\n').join(' | ')}${unsure.length ? `  (unsure: ${unsure.slice(0, 8).join(' ')})` : ''}`);
      return r;
    },
  });
  let exact = 0;
  let wrongPassed = 0;
  const verdicts: Record<string, number> = {};
  const times: number[] = [];
  for (const job of jobs.slice(from, from + count)) {
    const { photo, ...rest } = job;
    const doc = await cachedPhoto(rest, photo);
    if (process.env.DIAG_DUMP) fs.writeFileSync(`${process.env.DIAG_DUMP}/${job.kind}-${job.index}.${doc.contentType.split('/')[1]}`, doc.bytes);
    texts = [];
    const t = performance.now();
    const reading = await reader.read({ images: [doc], now });
    times.push(performance.now() - t);
    const same = job.kind !== 'invalid' && fieldsExact(reading.mrz?.fields, job.fields) && reading.mrz?.text === job.lines.join('\n');
    const ok = reading.verdict === 'pass' && same;
    verdicts[reading.verdict] = (verdicts[reading.verdict] ?? 0) + 1;
    if (ok) exact++;
    if (reading.verdict === 'pass' && !same) wrongPassed++;
    if (!ok || process.env.DIAG_VERBOSE)
      console.log(
        `#${job.index} ${job.fields.format} ${job.effects.join(',')} ${job.look ? Object.values(job.look).join(',') : ''} ${reading.verdict}${reading.verdict === 'pass' && !same ? ' WRONG-PASSED' : ''} ${Math.round(times[times.length - 1])}ms ${reading.reason}\n` +
          `  printed ${job.lines.join(' | ')}\n  read    ${(reading.mrz?.text ?? '').split('\n').join(' | ')}\n  ${JSON.stringify(reading.details)}\n` +
          texts.map((x) => `    ${x}\n`).join(''),
      );
  }
  if (cacheFile) fs.writeFileSync(cacheFile, JSON.stringify(cache));
  times.sort((a, b) => a - b);
  const q = (p: number) => Math.round(times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]);
  console.log(`exact ${exact}/${times.length}, wrong-but-passed ${wrongPassed}, verdicts ${JSON.stringify(verdicts)}, OCR calls ${ocrCalls}, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`);
  await ocr?.close();
}
void main();
