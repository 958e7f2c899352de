/**
 * Development aid for the MRZ reader: reads the tuning set's documents (the same seeded set as
 * `npm run eval:checks`, in its order) in this process (no worker pool) and prints, per document that is
 * not exact, what was printed, what was read, the verdict and every OCR reading.
 * It never reads the held-out set (bench/checks/heldout/): that set is for measuring, not for tuning.
 * Env: DIAG_SET (clean|degraded|invalid, default degraded), DIAG_FROM, DIAG_COUNT (within the set; default
 * all of it), DIAG_NOW (the eval's `now`, default now), DIAG_VERBOSE (print every document),
 * DIAG_OCR_CACHE (a JSON file of the OCR's glyphs keyed by image hash and mode: a change after the OCR is
 * then measured in seconds; times are meaningless with it).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { MrzDocumentReader } from '../../src/checks/engines/mrz-document.reader';
import { lineOfGlyphs } from '../../src/checks/engines/mrz-glyphs';
import { MrzOcr } from '../../src/checks/engines/mrz-ocr';
import { evalDocuments, fieldsExact, renderEvalDocument } from './eval-mrz';

async function main() {
  const now = process.env.DIAG_NOW ? new Date(process.env.DIAG_NOW) : new Date();
  const set = process.env.DIAG_SET ?? 'degraded';
  const from = Number(process.env.DIAG_FROM ?? 0);
  const jobs = evalDocuments(50, now).filter((j) => j.set === set);
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
    const doc = await renderEvalDocument(job);
    texts = [];
    const t = performance.now();
    const reading = await reader.read({ images: [doc], now });
    times.push(performance.now() - t);
    const same = fieldsExact(reading.mrz?.fields, job.fields);
    const ok = reading.verdict === 'pass' && same;
    verdicts[reading.verdict] = (verdicts[reading.verdict] ?? 0) + 1;
    if (ok) exact++;
    if (reading.verdict === 'pass' && !same) wrongPassed++;
    if (!ok || process.env.DIAG_VERBOSE)
      console.log(
        `#${job.index} ${job.fields.format} ${reading.verdict}${reading.verdict === 'pass' && !same ? ' WRONG-PASSED' : ''} ${Math.round(times[times.length - 1])}ms ${reading.reason}\n` +
          `  printed ${doc.mrz.join(' | ')}\n  read    ${(reading.mrz?.text ?? '').split('\n').join(' | ')}\n  ${JSON.stringify(reading.details)}\n` +
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
