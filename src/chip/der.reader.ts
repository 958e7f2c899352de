/**
 * A minimal BER/DER reader that keeps byte offsets.
 *
 * Signatures in CMS and X.509 are computed over the exact bytes that were sent, so the
 * verifier must never re-encode signedAttrs or a TBSCertificate. ASN.1 object mappers
 * re-serialise; this reader only slices.
 */
export interface DerNode {
  /** Tag class: 0 universal, 1 application, 2 context-specific, 3 private. */
  readonly tagClass: number;
  readonly constructed: boolean;
  readonly tagNumber: number;
  /** The whole TLV, header included. */
  readonly raw: Buffer;
  /** The content octets (for indefinite lengths, without the end-of-contents marker). */
  readonly value: Buffer;
}

export class DerError extends Error {
  override readonly name = 'DerError';
}

// Nesting in SODs and master lists stays far below this; the cap stops stack exhaustion on hostile input.
const MAX_DEPTH = 64;

export function readNode(buffer: Buffer, offset = 0, depth = 0): DerNode {
  if (depth > MAX_DEPTH) throw new DerError('ASN.1 nesting too deep');
  let pos = offset;
  const byte = (): number => {
    if (pos >= buffer.length) throw new DerError('truncated ASN.1 data');
    return buffer[pos++];
  };

  const first = byte();
  const tagClass = first >> 6;
  const constructed = (first & 0x20) !== 0;
  let tagNumber = first & 0x1f;
  if (tagNumber === 0x1f) {
    tagNumber = 0;
    let b: number;
    let count = 0;
    do {
      b = byte();
      tagNumber = tagNumber * 128 + (b & 0x7f);
      if (++count > 4) throw new DerError('tag number too large');
    } while (b & 0x80);
  }

  const lengthByte = byte();
  let contentStart: number;
  let contentEnd: number;
  let end: number;
  if (lengthByte === 0x80) {
    // BER indefinite length: some issuers emit it; walk the children to find the end.
    if (!constructed) throw new DerError('indefinite length on a primitive');
    contentStart = pos;
    let cursor = pos;
    for (;;) {
      if (cursor + 1 >= buffer.length) throw new DerError('truncated ASN.1 data');
      if (buffer[cursor] === 0 && buffer[cursor + 1] === 0) break;
      cursor += readNode(buffer, cursor, depth + 1).raw.length;
    }
    contentEnd = cursor;
    end = cursor + 2;
  } else {
    let length = lengthByte;
    if (lengthByte & 0x80) {
      const count = lengthByte & 0x7f;
      if (count > 4) throw new DerError('length too large');
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + byte();
    }
    contentStart = pos;
    contentEnd = pos + length;
    end = contentEnd;
    if (contentEnd > buffer.length) throw new DerError('truncated ASN.1 data');
  }

  return {
    tagClass,
    constructed,
    tagNumber,
    raw: buffer.subarray(offset, end),
    value: buffer.subarray(contentStart, contentEnd),
  };
}

/** Reads one node that must span the whole buffer (trailing bytes are rejected). */
export function readWhole(buffer: Buffer): DerNode {
  const node = readNode(buffer, 0);
  if (node.raw.length !== buffer.length) throw new DerError('trailing data after ASN.1 value');
  return node;
}

export function children(node: DerNode, depth = 0): DerNode[] {
  if (!node.constructed) throw new DerError('expected a constructed value');
  const result: DerNode[] = [];
  let offset = 0;
  while (offset < node.value.length) {
    const child = readNode(node.value, offset, depth + 1);
    result.push(child);
    offset += child.raw.length;
  }
  return result;
}

export const Tag = {
  BOOLEAN: 1,
  INTEGER: 2,
  BIT_STRING: 3,
  OCTET_STRING: 4,
  NULL: 5,
  OID: 6,
  UTF8_STRING: 12,
  SEQUENCE: 16,
  SET: 17,
  PRINTABLE_STRING: 19,
  IA5_STRING: 22,
  UTC_TIME: 23,
  GENERALIZED_TIME: 24,
} as const;

export function isUniversal(node: DerNode, tagNumber: number): boolean {
  return node.tagClass === 0 && node.tagNumber === tagNumber;
}

export function isContext(node: DerNode, tagNumber: number): boolean {
  return node.tagClass === 2 && node.tagNumber === tagNumber;
}

export function expectUniversal(node: DerNode | undefined, tagNumber: number, what: string): DerNode {
  if (!node || !isUniversal(node, tagNumber)) throw new DerError(`expected ${what}`);
  return node;
}

export function decodeOid(node: DerNode): string {
  expectUniversal(node, Tag.OID, 'OBJECT IDENTIFIER');
  const bytes = node.value;
  if (bytes.length === 0) throw new DerError('empty OBJECT IDENTIFIER');
  const arcs: number[] = [];
  let value = 0;
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new DerError('OID arc too large');
    if (!(b & 0x80)) {
      if (arcs.length === 0) {
        const first = value < 80 ? Math.floor(value / 40) : 2;
        arcs.push(first, value - first * 40);
      } else {
        arcs.push(value);
      }
      value = 0;
    }
  }
  return arcs.join('.');
}

export function decodeSmallInteger(node: DerNode): number {
  expectUniversal(node, Tag.INTEGER, 'INTEGER');
  if (node.value.length === 0 || node.value.length > 6) throw new DerError('INTEGER out of range');
  return node.value.readIntBE(0, node.value.length);
}

/** Content of an OCTET STRING, joining the segments of a BER constructed one. */
export function octetStringValue(node: DerNode): Buffer {
  expectUniversal(node, Tag.OCTET_STRING, 'OCTET STRING');
  if (!node.constructed) return node.value;
  return Buffer.concat(children(node).map(octetStringValue));
}

export function decodeTime(node: DerNode): Date {
  const text = node.value.toString('latin1');
  let match: RegExpMatchArray | null;
  if (isUniversal(node, Tag.UTC_TIME)) {
    match = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?Z$/.exec(text);
    if (!match) throw new DerError('bad UTCTime');
    const yy = Number(match[1]);
    // RFC 5280 4.1.2.5.1: UTCTime years 50-99 are 19xx.
    const year = yy >= 50 ? 1900 + yy : 2000 + yy;
    return new Date(Date.UTC(year, Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6] ?? 0)));
  }
  if (isUniversal(node, Tag.GENERALIZED_TIME)) {
    match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.\d+)?Z$/.exec(text);
    if (!match) throw new DerError('bad GeneralizedTime');
    return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6])));
  }
  throw new DerError('expected a time');
}
