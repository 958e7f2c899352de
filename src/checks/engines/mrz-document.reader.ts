import type { DocumentReader, DocumentReading, ImageInput, ModelRef, MrzFormat } from '../check-providers';
import { decodeImage } from './image-tools';
import type { LocatedMrz } from './mrz-locator';
import { mrzLikeness } from './mrz-likeness';
import { mrzZoneCandidates } from './mrz-zone-candidates';
import { MRZ_OCR_MODEL } from './embedded-models';
import type { ReadLine } from './mrz-glyphs';
import { failureAgreed } from './mrz-failure-agreement';
import { checkBlindLetterLines, combineReadings, nameLineIndex, type MrzConsensus, type ZoneReading } from './mrz-readings';
import { lineAloneVariants, stripVariants, type StripVariant } from './mrz-strip-variants';
import { failedFields, judgeMrzText, parseMrz, shapeLine } from './mrz-text';
import type { LineReading } from './mrz-votes';

/**
 * What the reader needs from an OCR engine: text and a 0..1 confidence for a PNG of a block or of one line,
 * and, when the engine gives them, its lines with a confidence per character (votes weigh them).
 */
export interface MrzTextRecogniser {
  read(png: Buffer, mode?: 'block' | 'line'): Promise<{ text: string; confidence: number; lines?: ReadLine[] }>;
}

/** The readings settle the zone: check digits hold, the name is settled by the votes, no conflict is left. */
const settledZone = (c: MrzConsensus) => c.kind === 'verified' && c.nameSettled && c.conflicts.length === 0;

/** At most this many distinct name readings are written in a reason (details keep up to 5). */
const NAME_READINGS_SHOWN = 3;

type Attempt = DocumentReading & { rank: number };

/**
 * `document_ocr` offline: finds the MRZ on each image (passport page, or card front then back), deskews
 * and reads it, validates every check digit with `mrz`, and checks expiry against `now`. Passes only when
 * every check digit holds and the document has not expired; otherwise the reason names what failed.
 */
export class MrzDocumentReader implements DocumentReader {
  constructor(
    private readonly ocr: MrzTextRecogniser,
    private readonly model: ModelRef = MRZ_OCR_MODEL,
  ) {}

  async read(input: { images: ImageInput[]; now: Date }): Promise<DocumentReading> {
    if (input.images.length === 0) return { verdict: 'fail', reason: 'No document image was captured.', model: this.model };
    let best: Attempt | undefined;
    for (const [index, image] of input.images.entries()) {
      const attempt = await this.readOne(image, index, input.now);
      if (!best || attempt.rank > best.rank) best = attempt;
      if (attempt.verdict === 'pass') break;
    }
    const { rank: _rank, ...reading } = best!;
    return reading;
  }

  private async readOne(image: ImageInput, index: number, now: Date): Promise<Attempt> {
    const model = this.model;
    let decoded;
    try {
      decoded = await decodeImage(image.bytes);
    } catch {
      return { verdict: 'fail', reason: `Document image ${index + 1} is not a readable image.`, model, rank: 0 };
    }
    const candidates = mrzZoneCandidates(decoded);
    // No zone found is no evidence against the document (a shadow, glare or thin print can hide it): a
    // person looks. Only a check digit or a date that fails declines a document.
    if (candidates.length === 0)
      return {
        verdict: 'review',
        reason: 'No machine-readable zone was found on the document image; a person should read the document.',
        model,
        rank: 1,
        details: { image: index },
      };
    // Independent readings until they settle the zone: check digits hold on the lines chosen, the name line
    // (which no check digit covers) is settled by a character-by-character vote weighted by the OCR's
    // confidence (mrz-votes.ts), and no other reading of a check-digit line holds its check digits with
    // different characters that the votes do not settle. Readings that agree on a failing check digit do not
    // stop it: the same misread (O for 0) often repeats in similar preprocessings and not in others. When
    // only the name is unsettled, the name line alone is read again with other crops and binarisations
    // before the other zone preprocessings. A name still unsettled is a review, never a pass or a fail.
    const read = async (variant: StripVariant) => {
      const reads = [];
      for (const image of variant.images) reads.push(await this.ocr.read(await image.encode('png'), variant.mode));
      return reads;
    };
    // The candidate zones (mrz-zone-candidates.ts) are probed in order with their first two preprocessings:
    // the first whose reading looks like an MRZ (as many lines as its line length calls for, fillers) is
    // read in full. Print around the document, text above a card's zone or a shadow across it can make the
    // first candidate a wrong one; when none looks like an MRZ, the most MRZ-like of them is read in full.
    const firstZone = candidates[0]();
    let located: LocatedMrz = firstZone;
    let probed: { variant: StripVariant; reads: Awaited<ReturnType<typeof read>> }[] = [];
    let variants = stripVariants(located);
    let zonesProbed = 0;
    let bestLikeness = -1;
    probe: for (const [k, crop] of candidates.entries()) {
      zonesProbed++;
      const candidate = k === 0 ? firstZone : crop();
      const own = stripVariants(candidate);
      const reads: typeof probed = [];
      for (let n = 0; n < 2; n++) {
        const next = own.next();
        if (next.done) break;
        reads.push({ variant: next.value, reads: await read(next.value) });
        const likeness = mrzLikeness(reads[reads.length - 1].reads.map((r) => r.text).join('\n'));
        if (likeness > bestLikeness) {
          bestLikeness = likeness;
          [located, probed, variants] = [candidate, reads, own];
        }
        if (likeness >= 0.6) break probe;
      }
    }
    /** One line read alone, shaped as line `index` of a `format` zone (undefined when too short to be it). */
    const readLineAlone = async (variant: StripVariant, format: MrzFormat, index: number) => {
      const [r] = await read(variant);
      const longest = (r.lines ?? r.text.split('\n').map((text) => ({ text, confidences: [...text].map(() => 1) }))).sort((a, b) => b.text.length - a.text.length)[0];
      return longest && shapeLine(longest, format, index);
    };
    // Every reading of one zone, until they settle it (or `limit` zone readings; `linesAlone`: whether check-digit
    // lines are read alone too when no combination of the zone's readings holds their check digits).
    const readZone = async (zone: LocatedMrz, done: typeof probed, more: Generator<StripVariant>, limit = Infinity, linesAlone = false) => {
      const readings: ZoneReading[] = [];
      const nameLines: LineReading[] = [];
      const checkLines: LineReading[][] = [];
      const confidences: number[] = [];
      let consensus: MrzConsensus = { kind: 'none' };
      let nameVariants: Generator<StripVariant> | undefined;
      const zoneReadings = function* () {
        yield* done;
        for (const variant of more) yield { variant, reads: undefined };
      };
      const readNameAlone = async (format: MrzFormat) => {
        nameVariants ??= lineAloneVariants(zone, nameLineIndex(format));
        for (const nameVariant of nameVariants) {
          const shaped = await readLineAlone(nameVariant, format, nameLineIndex(format));
          if (!shaped) continue;
          nameLines.push(shaped);
          consensus = combineReadings(readings, nameLines, checkLines);
          if (settledZone(consensus) || consensus.kind !== 'verified') break;
        }
      };
      for (const { variant, reads: already } of zoneReadings()) {
        if (readings.length >= limit) break;
        const reads = already ?? (await read(variant));
        readings.push({ text: reads.map((r) => r.text).join('\n'), lines: reads.every((r) => r.lines) ? reads.flatMap((r) => r.lines!) : undefined });
        confidences.push(reads.reduce((s, r) => s + r.confidence, 0) / reads.length);
        consensus = combineReadings(readings, nameLines);
        if (settledZone(consensus)) break;
        if (consensus.kind !== 'verified' || consensus.conflicts.length > 0 || readings.length < 2) continue;
        await readNameAlone(consensus.format);
        if (settledZone(consensus)) break;
      }
      // Every zone preprocessing read and still no combination holds the check digits: each check-digit line
      // is read alone with other crops and binarisations, and its characters voted over all its readings
      // (mrz-readings.ts); a voted line is kept only where every check digit holds on it.
      if (linesAlone && consensus.kind === 'unverified' && zone.lineRows.length === (consensus.format === 'TD1' ? 3 : 2)) {
        const { format } = consensus;
        const lineIndexes = zone.lineRows.map((_, i) => i).filter((i) => i !== nameLineIndex(format));
        lines: for (const index of lineIndexes)
          for (const variant of lineAloneVariants(zone, index, `line${index + 1}`)) {
            const shaped = await readLineAlone(variant, format, index);
            if (!shaped) continue;
            (checkLines[index] ??= []).push(shaped);
            consensus = combineReadings(readings, nameLines, checkLines);
            if (consensus.kind === 'verified') break lines;
          }
        if (consensus.kind === 'verified' && !settledZone(consensus) && consensus.conflicts.length === 0) await readNameAlone(format);
      }
      // A settled zone with a letter in a document number or optional data that its check digit cannot tell
      // from a digit (a 6 read G, an 8 read S: checkBlindLetterLines): the zone readings, alike in how they
      // crop the line, may all have read it so. That line is read alone once more; a reading that disputes
      // the letter or weighs the digit makes the zone a conflict, so a person looks (one OCR call of a line).
      if (consensus.kind === 'verified' && settledZone(consensus)) {
        const { format } = consensus;
        for (const index of checkBlindLetterLines(consensus.lines, nameLineIndex(format))) {
          const variant = lineAloneVariants(zone, index, `line${index + 1}`).next();
          const shaped = variant.done ? undefined : await readLineAlone(variant.value, format, index);
          if (!shaped) continue;
          (checkLines[index] ??= []).push(shaped);
          consensus = combineReadings(readings, nameLines, checkLines);
        }
      }
      return { readings, nameLines, checkLines, confidences, consensus };
    };
    let zoneRead = await readZone(located, probed, variants, Infinity, true);
    let widened = false;
    // No combination of readings holds its check digits: the zone may be cut short (glare or a shadow
    // fading its fillers at one end, so the lines measured fewer characters than a format has). The zone
    // widened to each longer format's length is read too (its first four preprocessings, then its check-digit
    // lines alone, voted), and kept if its check digits hold.
    if (zoneRead.consensus.kind !== 'verified' && !(zoneRead.consensus.kind === 'unverified' && zoneRead.consensus.zeroOrO))
      for (const wider of located.wider?.() ?? []) {
        const again = await readZone(wider, [], stripVariants(wider), 4, true);
        if (again.consensus.kind === 'verified') {
          [zoneRead, located, widened] = [again, wider, true];
          break;
        }
      }
    const { readings, nameLines, checkLines, confidences, consensus } = zoneRead;
    const checkLineReadings = checkLines.reduce((n, l) => n + (l?.length ?? 0), 0);
    const confidence = confidences.reduce((s, c) => s + c, 0) / confidences.length;
    const verified = consensus.kind === 'verified' ? consensus : undefined;
    const details = {
      image: index,
      skewDegrees: located.skewDegrees,
      ...(zonesProbed > 1 ? { zonesProbed } : {}),
      ...(widened ? { widened } : {}),
      ocrConfidence: Math.round(confidence * 1000) / 1000,
      readings: readings.length,
      ...(nameLines.length ? { nameLineReadings: nameLines.length } : {}),
      ...(checkLineReadings ? { checkDigitLineReadings: checkLineReadings } : {}),
      ...(verified ? { nameReadingsAgreeing: verified.nameVotes } : {}),
      ...(verified && !verified.nameSettled ? { nameReadings: verified.nameReadings.slice(0, 5) } : {}),
      ...(verified && verified.conflicts.length ? { conflicts: verified.conflicts } : {}),
    };
    const lines = consensus.kind === 'none' ? '' : consensus.lines.join('\n');
    let reading = judgeMrzText(lines, now, model, details);
    if (reading.verdict === 'pass' && verified && !settledZone(verified)) {
      const total = readings.length + nameLines.length;
      const what = !verified.nameSettled
        ? `the ${total} readings of the name line differ where no check digit can tell them apart: ${verified.nameReadings
            .slice(0, NAME_READINGS_SHOWN)
            .map((n) => `${n.line} (${n.readings} of ${total})`)
            .join(' / ')}; a person should compare the names with the document`
        : `${readings.length} independent readings differ where no check digit can tell them apart (${verified.conflicts.join(' / ')} against the lines kept); a person should compare the fields with the document`;
      reading = { ...reading, verdict: 'review', reason: `Every check digit holds, but ${what}.` };
    } else if (reading.verdict === 'fail' && verified) {
      // Every check digit holds, but a field no check digit covers (a name, a state code) does not parse: a
      // misread as likely as a wrong document, so a person looks; only check digits and dates decline.
      const failing = parseMrz(verified.lines).result.details.filter((d) => !d.valid);
      if (failing.length > 0 && failing.every((d) => !/check digit|date/i.test(d.label)))
        reading = { ...reading, verdict: 'review', reason: `Every check digit holds, but ${failedFields(parseMrz(verified.lines).result).join('; ')} could not be read with certainty; a person should compare the fields with the document.` };
    }
    if (reading.verdict === 'fail' && consensus.kind === 'unverified' && consensus.zeroOrO) {
      // The check digits hold if an O is a zero (or a zero an O) where OCR-B draws the two alike: no
      // reading can tell, so a person compares the characters with the document; never a pass.
      const { zeroOrO } = consensus;
      const judged = judgeMrzText(zeroOrO.lines.join('\n'), now, model, { ...details, zeroOrO: zeroOrO.positions });
      if (judged.verdict === 'pass') {
        const where = zeroOrO.positions.map((p) => `the ${p.read === 'O' ? 'letter O' : 'zero'} at character ${p.column + 1} of line ${p.line + 1} (${p.field}) were a ${p.read === 'O' ? 'zero' : 'letter O'}`).join(' and ');
        reading = { ...judged, verdict: 'review', reason: `Every check digit would hold if ${where}: the two are drawn almost alike in OCR-B, so no reading can tell them apart; a person should compare the characters with the document.` };
      }
    }
    if (reading.verdict === 'fail' && consensus.kind === 'unverified') {
      // No combination of readings holds the check digits. A check digit "truly fails" only where the readings
      // agree on it and on every character of its field (a tampered document reads the same every time); where
      // they scatter, the failure may be the OCR's, and a person reads the document (mrz-failure-agreement.ts).
      // Judged on the zone as voted, so the reason names what the readings agree on.
      const { agreement } = consensus;
      const voted = judgeMrzText(agreement.lines.join('\n'), now, model, details);
      const failing = agreement.failures.map((f) => f.label.toLowerCase());
      if (failureAgreed(agreement)) {
        const agreed = agreement.failures.filter((f) => f.agreed).map((f) => f.label.toLowerCase());
        reading = { ...voted, verdict: 'fail', reason: `${voted.reason} The ${agreement.readings} readings agree on the ${agreed.join(' and the ')} and on every character ${agreed.length > 1 ? 'they cover' : 'it covers'}.` };
      } else {
        const why = (f: (typeof agreement.failures)[number]) =>
          [
            ...(f.unsettledAt.length ? [`${f.unsettledAt.length} of its characters read differently`] : []),
            ...(f.malformed.length ? [`${f.malformed.map((m) => m.toLowerCase()).join(', ')} not well formed`] : []),
            ...(f.heldIf ? [`it holds if the ${f.heldIf.read} at character ${f.heldIf.column + 1} of line ${f.heldIf.line + 1} is the ${f.heldIf.as} the OCR also weighed there`] : []),
          ].join(', ');
        const what = failing.length
          ? `the readings do not agree on a well-formed failing check digit (${agreement.failures.map((f) => `${f.label.toLowerCase()}: ${why(f)}`).join('; ')})`
          : 'the readings voted character by character leave no failing check digit';
        reading = {
          ...voted,
          verdict: 'review',
          reason: `No combination of the ${agreement.readings} readings holds every check digit, but ${what}: a misread, not a check digit that fails; a person should read the document.`,
          details: { ...details, unsettledFailures: agreement.failures.map((f) => ({ label: f.label, unsettled: f.unsettledAt.length, ...(f.malformed.length ? { malformed: f.malformed } : {}), ...(f.heldIf ? { heldIf: f.heldIf } : {}) })) },
        };
      }
    }
    // A card's front has no zone: an image whose zone was read outranks one where none was, whatever its verdict.
    const rank = !reading.mrz ? 2 : reading.verdict === 'pass' ? 6 : reading.verdict === 'review' ? 5 : reading.reason.includes('expired') ? 4 : 3;
    return { ...reading, rank };
  }
}
