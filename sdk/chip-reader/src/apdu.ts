/** ISO 7816-4 command and response APDUs, short and extended length. */

export type CommandApdu = {
  cla: number;
  ins: number;
  p1: number;
  p2: number;
  data?: Uint8Array;
  /** Expected response length; 256 (short) or 65536 (extended) is encoded as zeros. Absent: no Le. */
  le?: number;
  /** Force extended length encoding (else chosen when Lc > 255 or Le > 256). */
  extended?: boolean;
};

export type ResponseApdu = { data: Uint8Array; sw: number };

export function encodeCommand(c: CommandApdu): Uint8Array {
  const data = c.data ?? new Uint8Array(0);
  const extended = c.extended || data.length > 255 || (c.le ?? 0) > 256;
  const out: number[] = [c.cla, c.ins, c.p1, c.p2];
  if (data.length > 0) {
    if (extended) out.push(0, (data.length >> 8) & 0xff, data.length & 0xff);
    else out.push(data.length);
    out.push(...data);
  }
  if (c.le !== undefined) {
    if (extended) {
      if (data.length === 0) out.push(0);
      out.push((c.le >> 8) & 0xff, c.le & 0xff);
    } else out.push(c.le & 0xff);
  }
  return Uint8Array.from(out);
}

export function decodeResponse(bytes: Uint8Array): ResponseApdu {
  if (bytes.length < 2) throw new Error('response shorter than its status word');
  return { data: bytes.subarray(0, bytes.length - 2), sw: (bytes[bytes.length - 2] << 8) | bytes[bytes.length - 1] };
}

export const SW_OK = 0x9000;
/** End of file reached before Le bytes: the data that was there came back. */
export const SW_END_OF_FILE = 0x6282;
