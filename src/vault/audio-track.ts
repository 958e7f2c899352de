/**
 * Finds out, as an upload streams by, whether a WebM or MP4 video holds an audio track: the
 * service never collects voice (spec, "Data never collected"), so such a video is refused before
 * anything of it is stored. Only the container's track list is read, never the media:
 *
 * - MP4: top-level boxes are skipped by size until `moov`; each `trak`'s `mdia/hdlr` names its
 *   handler, and `soun` is audio. `moov` may come after the media (no "fast start"): the media box
 *   is skipped, not held.
 * - WebM (Matroska EBML): inside the `Segment`, the `Tracks` element lists each `TrackEntry` with
 *   its `TrackType` (2 = audio) and `CodecID` (`A_...` = audio). A recorder writes `Tracks` before
 *   the first cluster, whose size it may leave unknown: reading stops at `Tracks`.
 *
 * A video whose track list cannot be found is `unreadable`: the caller refuses what it cannot
 * prove to be silent.
 */
import { isoBoxes } from './iso-boxes';

export type AudioVerdict = 'audio' | 'no_audio' | 'unreadable';

/** The most of a track list (`moov` / `Tracks`) held in memory; a real one is a few KiB. */
export const MAX_TRACK_LIST_BYTES = 4 * 1024 * 1024;

/** What a parser asks of the stream next: that many bytes, or to pass over that many (Infinity: to the end). */
type Want = { read: number } | { skip: number };
/** A parser: yields its wants, receives the bytes read (undefined once the stream ended short), returns its verdict. */
type Parser = Generator<Want, AudioVerdict, Buffer | undefined>;

/**
 * Drives a parser with chunks as they arrive, holding only the bytes it asked to read. The
 * verdict is known as soon as the parser returns (`verdict`), or at `end()`.
 */
export class AudioTrackScanner {
  private want: Want | null = null;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private result: AudioVerdict | null = null;
  private readonly parser: Parser;

  constructor(container: 'video/mp4' | 'video/webm') {
    this.parser = container === 'video/mp4' ? mp4() : webm();
    this.advance(undefined);
  }

  /** The verdict once known, else null. */
  get verdict(): AudioVerdict | null {
    return this.result;
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0 && this.want) {
      if ('skip' in this.want) {
        const n = Math.min(this.want.skip, rest.length);
        rest = rest.subarray(n);
        this.want = { skip: this.want.skip - n };
        if (this.want.skip === 0) this.advance(Buffer.alloc(0));
        continue;
      }
      const n = Math.min(this.want.read - this.heldBytes, rest.length);
      this.held.push(rest.subarray(0, n));
      this.heldBytes += n;
      rest = rest.subarray(n);
      if (this.heldBytes === this.want.read) {
        const bytes = Buffer.concat(this.held);
        this.held = [];
        this.heldBytes = 0;
        this.advance(bytes);
      }
    }
  }

  /** The stream ended: the verdict. */
  end(): AudioVerdict {
    while (this.result === null) this.advance(undefined);
    return this.result;
  }

  private advance(bytes: Buffer | undefined): void {
    for (;;) {
      const step = this.parser.next(bytes as Buffer);
      if (step.done) {
        this.result = step.value;
        this.want = null;
        return;
      }
      const want = step.value;
      // Nothing to read is answered at once: a parser may ask for 0 bytes.
      if ('read' in want && want.read === 0) {
        bytes = Buffer.alloc(0);
        continue;
      }
      if ('skip' in want && want.skip === 0) {
        bytes = Buffer.alloc(0);
        continue;
      }
      this.want = want;
      return;
    }
  }
}

// ---- MP4 (ISO BMFF) ----

function* mp4(): Parser {
  for (;;) {
    const header = yield { read: 8 };
    if (!header || header.length < 8) return 'unreadable'; // the stream ended before any moov
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let headerBytes = 8;
    if (size === 1) {
      const large = yield { read: 8 };
      if (!large) return 'unreadable';
      size = Number(large.readBigUInt64BE(0));
      headerBytes = 16;
    }
    if (size !== 0 && size < headerBytes) return 'unreadable';
    const body = size === 0 ? Infinity : size - headerBytes; // 0: the box runs to the end of the file
    if (type !== 'moov') {
      if (body === Infinity) return 'unreadable'; // the rest is media, and no moov came before it
      yield { skip: body };
      continue;
    }
    if (body > MAX_TRACK_LIST_BYTES) return 'unreadable';
    const moov = yield { read: body };
    if (!moov) return 'unreadable';
    return mp4TracksHaveAudio(moov);
  }
}

function child(payload: Buffer, type: string): Buffer | null {
  for (const box of isoBoxes(payload)) if (box.whole && box.type === type) return box.payload;
  return null;
}

function mp4TracksHaveAudio(moov: Buffer): AudioVerdict {
  let tracks = 0;
  for (const { type, payload: trak, whole } of isoBoxes(moov)) {
    if (!whole) break;
    if (type !== 'trak') continue;
    const hdlr = child(child(trak, 'mdia') ?? Buffer.alloc(0), 'hdlr');
    // hdlr: version and flags (4), pre_defined (4), handler_type (4).
    if (!hdlr || hdlr.length < 12) return 'unreadable';
    tracks++;
    if (hdlr.toString('latin1', 8, 12) === 'soun') return 'audio';
  }
  return tracks > 0 ? 'no_audio' : 'unreadable';
}

// ---- WebM (Matroska EBML) ----

const EBML_HEADER = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_TYPE = 0x83;
const CODEC_ID = 0x86;
const AUDIO_TRACK_TYPE = 2;

/** Length of an EBML variable-length integer from its first byte (1 to 8), or 0 when invalid. */
function vintLength(first: number): number {
  for (let n = 1; n <= 8; n++) if (first & (0x100 >> n)) return n;
  return 0;
}

/** An element's id (marker bits kept, as ids are written) and its data size (null: unknown). */
function* webmHeader(): Generator<Want, { id: number; size: number | null } | null, Buffer | undefined> {
  const idFirst = yield { read: 1 };
  if (!idFirst || idFirst.length < 1) return null;
  const idLength = vintLength(idFirst[0]);
  if (idLength === 0 || idLength > 4) return null;
  const idRest = yield { read: idLength - 1 };
  if (!idRest) return null;
  const id = Buffer.concat([idFirst, idRest]).readUIntBE(0, idLength);
  const sizeFirst = yield { read: 1 };
  if (!sizeFirst || sizeFirst.length < 1) return null;
  const sizeLength = vintLength(sizeFirst[0]);
  if (sizeLength === 0) return null;
  const sizeRest = yield { read: sizeLength - 1 };
  if (!sizeRest) return null;
  const raw = Buffer.concat([sizeFirst, sizeRest]);
  raw[0] &= 0xff >> sizeLength; // drop the length marker
  const allOnes = raw[0] === 0xff >> sizeLength && raw.subarray(1).every((b) => b === 0xff);
  return { id, size: allOnes ? null : Number(readUInt(raw)) };
}

function readUInt(bytes: Buffer): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function* webm(): Parser {
  const first = yield* webmHeader();
  if (!first || first.id !== EBML_HEADER || first.size === null) return 'unreadable';
  yield { skip: first.size };
  const segment = yield* webmHeader();
  if (!segment || segment.id !== SEGMENT) return 'unreadable';
  // Children of the Segment until Tracks (the Segment's own size, often unknown, is not needed).
  for (;;) {
    const element = yield* webmHeader();
    if (!element || element.size === null) return 'unreadable'; // ended, or an unknown-size cluster before any Tracks
    if (element.id !== TRACKS) {
      yield { skip: element.size };
      continue;
    }
    if (element.size > MAX_TRACK_LIST_BYTES) return 'unreadable';
    const tracks = yield { read: element.size };
    if (!tracks) return 'unreadable';
    return webmTracksHaveAudio(tracks);
  }
}

/** Child elements of one element's data, as [id, data]; null when the data is not well formed. */
function ebmlChildren(data: Buffer): [number, Buffer][] | null {
  const out: [number, Buffer][] = [];
  let at = 0;
  while (at < data.length) {
    const idLength = vintLength(data[at]);
    if (idLength === 0 || idLength > 4 || at + idLength >= data.length) return null;
    const id = data.readUIntBE(at, idLength);
    at += idLength;
    const sizeLength = vintLength(data[at]);
    if (sizeLength === 0 || at + sizeLength > data.length) return null;
    const raw = Buffer.from(data.subarray(at, at + sizeLength));
    raw[0] &= 0xff >> sizeLength;
    const size = Number(readUInt(raw));
    at += sizeLength;
    if (at + size > data.length) return null;
    out.push([id, data.subarray(at, at + size)]);
    at += size;
  }
  return out;
}

function webmTracksHaveAudio(tracks: Buffer): AudioVerdict {
  const entries = ebmlChildren(tracks);
  if (!entries) return 'unreadable';
  let count = 0;
  for (const [id, entry] of entries) {
    if (id !== TRACK_ENTRY) continue;
    const fields = ebmlChildren(entry);
    if (!fields) return 'unreadable';
    count++;
    for (const [fieldId, value] of fields) {
      if (fieldId === TRACK_TYPE && value.length > 0 && Number(readUInt(value)) === AUDIO_TRACK_TYPE) return 'audio';
      if (fieldId === CODEC_ID && value.toString('latin1').startsWith('A_')) return 'audio';
    }
  }
  return count > 0 ? 'no_audio' : 'unreadable';
}
