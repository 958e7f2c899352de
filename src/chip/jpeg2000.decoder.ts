import { isoBoxes } from '../vault/iso-boxes';

type J2KDecoder = {
  getEncodedBuffer(length: number): Uint8Array;
  decode(): void;
  getFrameInfo(): { width: number; height: number; bitsPerSample: number; componentCount: number; isSigned: boolean };
  getDecodedBuffer(): Uint8Array;
  delete(): void;
};
type OpenJpegModule = { J2KDecoder: new () => J2KDecoder };

// The wasm module is compiled once per process; each decode makes (and frees) its own decoder.
let openjpeg: Promise<OpenJpegModule> | null = null;
function module(): Promise<OpenJpegModule> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const factory = require('@cornerstonejs/codec-openjpeg/decodewasmjs') as (options: object) => Promise<OpenJpegModule>;
  // OpenJPEG logs every header it reads to stdout: silenced, the server's log is JSON.
  openjpeg ??= factory({ print: () => undefined, printErr: () => undefined });
  return openjpeg;
}

/** Largest portrait decoded: ICAO portraits are a few hundred pixels a side; this stops a hostile header from allocating gigabytes. */
const MAX_PIXELS = 4096 * 4096;

/**
 * JPEG 2000 (a JP2 file or a bare codestream, as DG2 stores portraits) to PNG, so the face engines,
 * which read JPEG and PNG, can compare it. OpenJPEG compiled to WebAssembly: no native build, no network.
 */
export async function jpeg2000ToPng(bytes: Buffer): Promise<Buffer> {
  const codestream = codestreamOf(bytes);
  const decoder = new (await module()).J2KDecoder();
  try {
    decoder.getEncodedBuffer(codestream.length).set(codestream);
    decoder.decode();
    const { width, height, componentCount, bitsPerSample } = decoder.getFrameInfo();
    if (width < 1 || height < 1 || width * height > MAX_PIXELS) throw new Error(`JPEG 2000 image of ${width}x${height} pixels is out of range`);
    if (bitsPerSample !== 8 || (componentCount !== 1 && componentCount !== 3)) throw new Error(`JPEG 2000 image with ${componentCount} components of ${bitsPerSample} bits is not supported`);
    const pixels = decoder.getDecodedBuffer();
    // The native canvas is loaded by the first chip portrait, not by every server's start (docs/benchmarks.md, "Server start-up").
    const { createCanvas } = await import('@napi-rs/canvas');
    const canvas = createCanvas(width, height);
    const ctx = canvas.getContext('2d');
    const image = ctx.createImageData(width, height);
    for (let i = 0; i < width * height; i++) {
      const at = i * componentCount;
      image.data[4 * i] = pixels[at];
      image.data[4 * i + 1] = pixels[componentCount === 3 ? at + 1 : at];
      image.data[4 * i + 2] = pixels[componentCount === 3 ? at + 2 : at];
      image.data[4 * i + 3] = 255;
    }
    ctx.putImageData(image, 0, 0);
    // The asynchronous encoder runs on libuv's pool: PNG compression stays off the event loop (the decode itself, tens of ms, does not).
    return await canvas.encode('png');
  } finally {
    decoder.delete();
  }
}

const SOC_SIZ = Buffer.from([0xff, 0x4f, 0xff, 0x51]);

/** The contiguous codestream: the `jp2c` box of a JP2 file (ISO/IEC 15444-1 annex I), or the bytes themselves when they are one. */
function codestreamOf(bytes: Buffer): Buffer {
  if (bytes.subarray(0, 4).equals(SOC_SIZ)) return bytes;
  for (const box of isoBoxes(bytes)) if (box.type === 'jp2c') return box.payload;
  throw new Error('No JPEG 2000 codestream found');
}
