import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/**
 * Below this a buffer may be a slice of Node's shared 8 KiB pool, or not worth the call.
 */
const SMALLEST_RELEASED = 64 * 1024;

/**
 * Frees a buffer's memory now instead of at the next garbage collection, when the buffer is the whole of its
 * own ArrayBuffer (a `Decipher`'s output, an `fs.ReadStream` chunk). Only for a buffer nothing else will read:
 * afterwards it is empty (its ArrayBuffer is detached).
 *
 * Why: V8 counts a buffer's bytes as external memory until a collection sweeps it, and each 64 MiB of it starts
 * a full mark of the whole heap. Streaming evidence allocates a read and a decipher buffer per 512 KiB and
 * little else, so with nothing freed the server marked its whole heap every 300-500 ms of downloading (77 full
 * collections in one bench:hosted run, 22 with both freed: docs/benchmarks.md, "Buffers freed as they are sent").
 * Returns whether it was freed.
 */
export function releaseBuffer(chunk: Buffer): boolean {
  const { buffer } = chunk;
  if (chunk.byteOffset !== 0 || chunk.byteLength !== buffer.byteLength || chunk.byteLength < SMALLEST_RELEASED) return false;
  if (!(buffer instanceof ArrayBuffer) || buffer.detached) return false;
  buffer.transfer(0);
  return true;
}

/**
 * Writes every chunk of `body` to `dest` (an HTTP response) with back-pressure, ends `dest` and waits until it
 * has finished, freeing each chunk (`releaseBuffer`) once `dest` has taken it: each must be the body's own fresh
 * buffer that goes nowhere else (a decipher's output). An error of either side, or `dest` closing early (a client
 * gone), rejects, with `dest` destroyed; the body is destroyed by leaving its loop.
 */
export async function pumpReleasing(body: AsyncIterable<Buffer>, dest: Writable): Promise<void> {
  const closedEarly = () => new Error('the destination closed before the end');
  const gone = new AbortController();
  const onClose = () => gone.abort(closedEarly());
  dest.once('close', onClose);
  try {
    for await (const chunk of body) {
      if (dest.destroyed) throw dest.errored ?? closedEarly();
      if (!dest.write(chunk, () => releaseBuffer(chunk))) await once(dest, 'drain', { signal: gone.signal });
    }
  } catch (err) {
    dest.destroy();
    throw err;
  } finally {
    dest.off('close', onClose);
  }
  dest.end();
  await finished(dest);
}
