import { pipeline, Readable, Transform } from 'node:stream';
import { releaseBuffer } from './buffer-release';

/**
 * A synchronous step each chunk of a stored blob passes through on its way out: a `Decipher` is one.
 */
export interface ChunkStep {
  update(chunk: Buffer): Buffer;
  /** What is left once the last chunk has passed; throws when the whole is not right (an AES-GCM tag that fails). */
  final(): Buffer;
}

/**
 * `source` through `step`, as a stream whose error or destruction reaches both. The step's last output is given
 * only once `final` has passed: AES-GCM checks its tag at the end, and a stream that had already given every
 * byte would have given the whole length of a blob altered at rest (docs/security.md, "Evidence at rest").
 *
 * With `releaseSourceChunks` (a source whose every chunk is a buffer of its own that nothing else holds: the
 * filesystem store's), each source chunk is freed as soon as the step has read it (`releaseBuffer`). The
 * stream's own chunks are always the step's fresh output: its reader may release them once used.
 */
export function throughStep(source: Readable, step: ChunkStep, { releaseSourceChunks = false } = {}): Readable {
  let withheld: Buffer | null = null;
  const through = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let out: Buffer;
      try {
        out = step.update(chunk);
      } catch (err) {
        return done(err as Error);
      }
      if (releaseSourceChunks) releaseBuffer(chunk);
      const previous = withheld;
      if (out.length > 0) withheld = out;
      done(null, previous && out.length > 0 ? previous : undefined);
    },
    flush(done) {
      let out: Buffer;
      try {
        out = step.final();
      } catch (err) {
        return done(err as Error);
      }
      if (withheld) this.push(withheld);
      done(null, out.length > 0 ? out : undefined);
    },
  });
  return pipeline(source, through, () => undefined);
}
