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
import { lineOfGlyphs, type ReadLine } from '../../src/checks/engines/mrz-glyphs';
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
  /** DIAG_ALT_STATS: every block reading's lines, compared with the print afterwards (altStats). */
  let readLines: ReadLine[][] = [];
  const altStats = new AltStats();
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
      if ((mode ?? 'block') === 'block' && r.lines) readLines.push(r.lines);
      const unsure = (r.lines ?? []).flatMap((l) => [...l.text].flatMap((c, i) => (l.confidences[i] < 0.9 ? [`${c}@${i}:${Math.round(l.confidences[i] * 100)}`] : [])));
      const weighed = (r.lines ?? []).flatMap((l, n) => [...l.text].flatMap((c, i) => (l.alternatives?.[i] ?? []).filter((a) => a.confidence >= 0.2).map((a) => `${n + 1}:${c}@${i}>${a.char}:${Math.round(a.confidence * 100)}/${Math.round(l.confidences[i] * 100)}`)));
      texts.push(`[${mode ?? 'block'}] ${r.text.trim().split('\n').join(' | ')}${unsure.length ? `  (unsure: ${unsure.slice(0, 8).join(' ')})` : ''}${weighed.length ? `  (weighed: ${weighed.slice(0, 8).join(' ')})` : ''}`);
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
    readLines = [];
    const t = performance.now();
    const reading = await reader.read({ images: [doc], now });
    times.push(performance.now() - t);
    const same = job.kind !== 'invalid' && fieldsExact(reading.mrz?.fields, job.fields) && reading.mrz?.text === job.lines.join('\n');
    const ok = reading.verdict === 'pass' && same;
    verdicts[reading.verdict] = (verdicts[reading.verdict] ?? 0) + 1;
    if (ok) exact++;
    if (job.kind !== 'invalid') for (const lines of readLines) altStats.add(job.lines, lines, job.fields.format === 'TD1' ? 2 : 0);
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
  if (process.env.DIAG_ALT_STATS) altStats.print();
  await ocr?.close();
}

/** ICAO 9303's value of an MRZ character: its check digits weigh characters whose values differ by 10 alike. */
const mrzValue = (c: string) => (c === '<' ? 0 : /[0-9]/.test(c) ? Number(c) : c.charCodeAt(0) - 55);
const sameCheckValue = (a: string, b: string) => a !== b && (mrzValue(a) - mrzValue(b)) % 10 === 0;

/**
 * DIAG_ALT_STATS: how strongly the OCR weighed another character (mrz-ocr.ts alternatives) where it read
 * the printed one, and where it misread: per line kind (name or check-digit line), the strongest other
 * choice (any, and one with the same check-digit value), in buckets of confidence.
 */
class AltStats {
  private readonly counts = new Map<string, number[]>();
  private static readonly EDGES = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.01];
  add(printed: string[], read: ReadLine[], nameIndex: number) {
    if (read.length !== printed.length) return;
    read.forEach((line, n) => {
      if (!line.alternatives || line.text.length !== printed[n].length) return;
      const kind = n === nameIndex ? 'name' : 'check';
      [...line.text].forEach((c, i) => {
        const truth = printed[n][i];
        const alts = line.alternatives![i] ?? [];
        const best = (f: (a: string) => boolean) => Math.max(0, ...alts.filter((a) => f(a.char)).map((a) => a.confidence));
        if (c === truth) {
          this.bump(`${kind} right, any other`, best(() => true));
          if (kind === 'check') this.bump(`${kind} right, same check value`, best((a) => sameCheckValue(a, c)));
          else this.bump(`${kind} right, other letter`, best((a) => /[A-Z]/.test(a)));
        } else if (c !== '?') {
          this.bump(`${kind} misread, truth among others`, best((a) => a === truth));
          if (kind === 'check' && sameCheckValue(c, truth)) this.bump(`${kind} misread with same check value, truth among others`, best((a) => a === truth));
        }
      });
    });
  }
  private bump(key: string, confidence: number) {
    const row = this.counts.get(key) ?? new Array<number>(AltStats.EDGES.length + 1).fill(0);
    row[confidence === 0 ? 0 : AltStats.EDGES.findIndex((e) => confidence < e) + 1]++;
    this.counts.set(key, row);
  }
  print() {
    console.log(`strongest other choice: none | <${AltStats.EDGES.join(' | <')}`);
    for (const [key, row] of this.counts) console.log(`${key}: ${row.join(' | ')}`);
  }
}

void main();
