import path from 'node:path';
import { createWorker, PSM, type Worker } from 'tesseract.js';
import { lineOfGlyphs, type Alternative, type Glyph, type ReadLine } from './mrz-glyphs';

/** The project's MRZ model folder (assets/ocr/README.md); resolved from src/ and from dist/src/. */
export function ocrModelDir(): string {
  const fromSrc = path.resolve(__dirname, '..', '..', '..', 'assets', 'ocr');
  const fromDist = path.resolve(__dirname, '..', '..', '..', '..', 'assets', 'ocr');
  return __dirname.includes(`${path.sep}dist${path.sep}`) ? fromDist : fromSrc;
}

/**
 * One tesseract.js worker holding the MRZ model, created once per check worker. Reads text restricted
 * to the MRZ alphabet; nothing is fetched or cached (langPath on disk, cacheMethod 'none').
 */
export class MrzOcr {
  private mode: 'block' | 'line' = 'block';

  private constructor(private readonly worker: Worker) {}

  static async start(): Promise<MrzOcr> {
    const worker = await createWorker('mrz', 1, { langPath: ocrModelDir(), cacheMethod: 'none', gzip: false });
    await worker.setParameters({
      tessedit_char_whitelist: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<',
      tessedit_pageseg_mode: PSM.SINGLE_BLOCK,
      // The other characters the recogniser weighed for each glyph, taken from its CTC output per character
      // (mode 2), are written into the hOCR output: the reader asks of a look-alike no check digit can tell
      // apart (a 6 or a G in a document number) whether the OCR was torn between the two (mrz-readings.ts).
      lstm_choice_mode: '2',
    });
    return new MrzOcr(worker);
  }

  /**
   * The text read, one line per text line, tesseract's mean confidence 0..1, and each line with its
   * characters' confidences; `line` reads the image as one text line. Each line is rebuilt from its glyphs'
   * positions (mrz-glyphs.ts), so a printed character the OCR split into two is `?` rather than an extra character.
   */
  async read(png: Buffer, mode: 'block' | 'line' = 'block'): Promise<{ text: string; confidence: number; lines: ReadLine[] }> {
    const { lines, confidence } = await this.readGlyphs(png, mode);
    const read = lines.map(lineOfGlyphs);
    return { text: read.map((l) => l.text).join('\n'), confidence, lines: read };
  }

  /** The glyphs read, line by line, with their horizontal extents and confidences (tesseract's symbol confidence / 100). */
  async readGlyphs(png: Buffer, mode: 'block' | 'line' = 'block'): Promise<{ lines: Glyph[][]; confidence: number }> {
    if (mode !== this.mode) {
      await this.worker.setParameters({ tessedit_pageseg_mode: mode === 'line' ? PSM.SINGLE_LINE : PSM.SINGLE_BLOCK });
      this.mode = mode;
    }
    const { data } = await this.worker.recognize(png, {}, { text: false, blocks: true, hocr: true });
    const lines = (data.blocks ?? []).flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
    const symbols = lines.map((l) => l.words.flatMap((w) => w.symbols));
    const choices = symbolChoices(data.hocr ?? '', symbols.flat().map((s) => s.text));
    let n = 0;
    return {
      lines: symbols.map((line) =>
        line.map((s) => {
          const alternatives = choices?.[n++];
          return { text: s.text, x0: s.bbox.x0, x1: s.bbox.x1, confidence: s.confidence / 100, ...(alternatives ? { alternatives } : {}) };
        }),
      ),
      confidence: data.confidence / 100,
    };
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

const HOCR_ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#39;': "'" };

/**
 * Each symbol's other choices (strongest first, confidence > 0) from tesseract's hOCR with `lstm_choice_mode`
 * 2: one `lstm_choices` group per symbol, in the order of the JSON output's symbols, its first choice the
 * symbol itself. Undefined when the groups do not line up with the symbols one to one (then no symbol has
 * alternatives: the reader judges on the characters as it did without them).
 */
export function symbolChoices(hocr: string, symbols: string[]): Alternative[][] | undefined {
  const groups = hocr.split("id='lstm_choices_").slice(1);
  if (groups.length !== symbols.length) return undefined;
  const out: Alternative[][] = [];
  for (const [k, group] of groups.entries()) {
    const choices = [...group.matchAll(/x_confs ([0-9.]+)'>([^<]*)<\/span>/g)].map((m) => ({
      char: m[2].replace(/&[a-z#0-9]+;/g, (e) => HOCR_ENTITIES[e] ?? e),
      confidence: Number(m[1]) / 100,
    }));
    if (choices[0]?.char !== symbols[k]) return undefined;
    out.push(choices.slice(1).filter((c) => c.confidence > 0 && c.char !== symbols[k]));
  }
  return out;
}
