import { close, read } from 'node:fs';
import { Readable } from 'node:stream';
import type { ChunkStep } from './chunk-step';

/**
 * A file read through a `ChunkStep` into one buffer reused for the whole file. `createReadStream` piped into a
 * Decipher allocates two buffers per read (the read's and the clear bytes'); this allocates one, and a server
 * streaming evidence spends much of its download CPU collecting those buffers from a large heap (a download's
 * external allocations start V8's full collections: docs/benchmarks.md, "Hosted flow"). The step's output is
 * its own copy (`ChunkStep`), so the buffer can be read into again at once.
 *
 * The step's last output is held back until `final` has passed (`withheldUntilFinal`): a blob altered at rest
 * fails its AES-GCM tag only at the end, and a reader that had already sent every byte would have sent the whole
 * length of a forged artifact. Owns `fd`: closes it at the end, on an error, or when destroyed (after a read in
 * flight has returned).
 */
export class SteppedFileReader extends Readable {
  private readonly buffer: Buffer;
  private position = 0;
  private reading = false;
  private closeAfterRead: (() => void) | null = null;
  private withheldUntilFinal: Buffer | null = null;

  constructor(
    private readonly fd: number,
    private readonly step: ChunkStep,
    chunkBytes: number,
  ) {
    super({ highWaterMark: chunkBytes });
    this.buffer = Buffer.allocUnsafeSlow(chunkBytes);
  }

  override _read(): void {
    this.reading = true;
    read(this.fd, this.buffer, 0, this.buffer.length, this.position, (err, n) => {
      this.reading = false;
      if (this.closeAfterRead) return this.closeAfterRead();
      if (err) return this.destroy(err);
      let out: Buffer;
      try {
        out = n === 0 ? this.step.final() : this.step.update(this.buffer.subarray(0, n));
      } catch (stepErr) {
        return this.destroy(stepErr as Error);
      }
      this.position += n;
      const previous = this.withheldUntilFinal;
      if (n === 0) {
        if (previous) this.push(previous);
        if (out.length > 0) this.push(out);
        this.push(null);
        return;
      }
      if (out.length > 0) this.withheldUntilFinal = out;
      if (previous && out.length > 0) this.push(previous);
      else this._read(); // nothing to give yet (the first chunk, or a step holding a partial block): read on
    });
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    const closeFd = () => close(this.fd, () => done(err));
    if (this.reading) this.closeAfterRead = closeFd;
    else closeFd();
  }
}
