import type { ServerResponse } from 'node:http';

/**
 * Writes `count` copies of `chunk` to `res` only as fast as the reader takes them (never more than
 * one chunk waiting), then ends it; stops early once `res` is destroyed (the reader hung up).
 * `onChunk` runs before each write, e.g. to count what was written.
 */
export function writeChunks(res: ServerResponse, chunk: Buffer, count: number, onChunk: () => void = () => undefined): void {
  let left = count;
  const more = (): void => {
    while (left > 0 && !res.destroyed) {
      left--;
      onChunk();
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}
