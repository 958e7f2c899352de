import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Request } from 'express';
import { DomainError } from '../src/errors';

/** Content-Encodings a streamed body may arrive in (those body-parser inflates for the buffered routes). */
const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * The request body as it arrives, decoded from its Content-Encoding, never more than `maxBytes`
 * (decoded bytes: a small gzip body that inflates past the limit is cut there): 413
 * `payload_too_large` when a declared Content-Length is over it, before reading, or as soon as the
 * bytes go past it. Nothing is buffered here: the consumer takes one chunk at a time, and the body
 * is read only as fast as it does. A consumer that stops early leaves the rest unread and the
 * request intact, so the error answer (http/error-response.ts answerDomainError) can drain it.
 */
export async function* streamedBody(req: Request, maxBytes: number, tooLarge: string): AsyncGenerator<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw new DomainError('payload_too_large', tooLarge);
  const encoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = encoding === 'identity' || encoding === '' ? null : DECODERS[encoding];
  if (decoder === undefined) throw new DomainError('unsupported_media_type', `Content-Encoding ${JSON.stringify(encoding.slice(0, 32))} is not accepted: send the body as it is, or as gzip, deflate or br`);
  const inflating = decoder?.();
  const source: AsyncIterable<Buffer> = inflating ? req.pipe(inflating) : (req as Readable).iterator({ destroyOnReturn: false });
  let total = 0;
  try {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > maxBytes) throw new DomainError('payload_too_large', tooLarge);
      yield chunk;
    }
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw new DomainError('invalid_request', 'The request body does not match its content-encoding');
    throw err;
  } finally {
    if (inflating) {
      req.unpipe(inflating);
      inflating.destroy();
    }
  }
}
