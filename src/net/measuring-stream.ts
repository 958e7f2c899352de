import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/**
 * A pass-through that hashes (SHA-256) and counts the bytes flowing through it: the export
 * manifest's entries and the filesystem vault's content-addressed names are both known only once
 * the stream has ended. `sha256()` is read once, after the end.
 */
export function measuring(): { stream: Transform; sha256(): string; size(): number } {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, sha256: () => hash.digest('hex'), size: () => size };
}
