/** BER-TLV as the LDS uses it (ICAO 9303-10): one- or two-byte tags, definite lengths up to 4 bytes. */

export type Tlv = { tag: number; length: number; headerLength: number };

export function readTlvHeader(bytes: Uint8Array, at = 0): Tlv | undefined {
  let i = at;
  if (i >= bytes.length) return undefined;
  let tag = bytes[i++];
  if ((tag & 0x1f) === 0x1f) {
    do {
      if (i >= bytes.length) return undefined;
      tag = (tag << 8) | bytes[i];
    } while (bytes[i++] & 0x80);
  }
  if (i >= bytes.length) return undefined;
  let length = bytes[i++];
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0 || n > 4 || i + n > bytes.length) return undefined;
    length = 0;
    for (let k = 0; k < n; k++) length = length * 256 + bytes[i++];
  }
  return { tag, length, headerLength: i - at };
}

/** The children of a constructed value, each with its value bytes. */
export function* tlvChildren(bytes: Uint8Array): Generator<{ tag: number; value: Uint8Array }> {
  let at = 0;
  while (at < bytes.length) {
    const h = readTlvHeader(bytes, at);
    if (!h || at + h.headerLength + h.length > bytes.length) throw new Error('truncated TLV');
    yield { tag: h.tag, value: bytes.subarray(at + h.headerLength, at + h.headerLength + h.length) };
    at += h.headerLength + h.length;
  }
}

export function encodeTlv(tag: number, value: Uint8Array): Uint8Array {
  const tagBytes = tag > 0xff ? [tag >> 8, tag & 0xff] : [tag];
  const n = value.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  const out = new Uint8Array(tagBytes.length + len.length + n);
  out.set([...tagBytes, ...len]);
  out.set(value, tagBytes.length + len.length);
  return out;
}
