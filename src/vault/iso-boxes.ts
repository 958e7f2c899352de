/** One box of the ISO base media file format (MP4 and JP2 alike): its type and its payload, clipped to the bytes at hand. */
export type IsoBox = { type: string; payload: Buffer; whole: boolean };

/**
 * The boxes that follow one another in `bytes` (ISO/IEC 14496-12 section 4.2: a 32-bit size, or 1 for
 * a 64-bit size after the type, or 0 for "to the end"). A box that runs past the end comes last, not
 * `whole`; a size too small to be a box ends the walk.
 */
export function* isoBoxes(bytes: Buffer): Generator<IsoBox> {
  let at = 0;
  while (at + 8 <= bytes.length) {
    let size = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    let headerBytes = 8;
    if (size === 1) {
      if (at + 16 > bytes.length) return;
      size = Number(bytes.readBigUInt64BE(at + 8));
      headerBytes = 16;
    } else if (size === 0) {
      size = bytes.length - at;
    }
    if (size < headerBytes) return;
    const whole = at + size <= bytes.length;
    yield { type, payload: bytes.subarray(at + headerBytes, Math.min(bytes.length, at + size)), whole };
    if (!whole) return;
    at += size;
  }
}
