/**
 * At most `slots` upload bodies are read at once. An upload's ciphertext is held in memory until
 * its one transaction (docs/hosted-flow.md "The hosted API"), so without a bound every body in
 * flight would be in memory together: 200 parallel 5 MiB uploads took the server's RSS up by
 * 1.25 GB (docs/benchmarks.md). Waiting uploads are not read, so TCP holds their bytes back at the
 * client; memory stays near slots x the largest upload.
 */
export class UploadGate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly slots: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
