/** A response body that went past the reader's limit: declared so by its Content-Length, or found so as it streamed. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number, declared?: number) {
    super(declared !== undefined ? `the answer is too large (${declared} bytes, limit ${maxBytes})` : `the answer is larger than the ${maxBytes}-byte limit`);
  }
}

/**
 * Reads a fetch response's body whole, but never more than `maxBytes`: a declared length over the limit
 * is refused before reading, and a body without one (chunked) is cut off as soon as it passes the limit,
 * so a server that streams without end costs at most `maxBytes` of memory.
 */
export async function readCappedBody(res: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new BodyTooLargeError(maxBytes, declared);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += (chunk as Uint8Array).byteLength;
    if (size > maxBytes) throw new BodyTooLargeError(maxBytes);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}
