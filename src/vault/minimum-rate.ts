import { DomainError } from '../errors';

/** A body slower than this on average, once its grace period is over, is cut (issue 25, finding 5). */
export const UPLOAD_MIN_RATE = { graceMs: 10_000, bytesPerSecond: 16 * 1024 } as const;

/**
 * Passes `source` through, and fails with 408 `upload_too_slow` as soon as the body's average rate
 * since it started falls below `bytesPerSecond` after `graceMs`: a client that trickles (or stops)
 * cannot hold an upload slot for minutes. The check is a deadline, not a poll: with `received` bytes
 * read, the rate falls below the minimum at `start + received / rate`, and never before the grace ends.
 */
export async function* atMinimumRate<T extends Buffer | string>(
  source: AsyncIterable<T>,
  opts: { graceMs: number; bytesPerSecond: number } = UPLOAD_MIN_RATE,
  now: () => number = Date.now,
): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  const started = now();
  let received = 0;
  let pending = false;
  // One timer for the body, re-armed only when it fires before the deadline (which moves with every
  // chunk) or after a read was not pending: a timer and a race per 64 KiB chunk cost CPU on every upload.
  let timer: NodeJS.Timeout | undefined;
  let cut: (() => void) | null = null;
  const deadline = () => started + Math.max(opts.graceMs, (received / opts.bytesPerSecond) * 1000);
  const arm = () => {
    timer = setTimeout(fire, Math.max(0, deadline() - now()));
  };
  const fire = () => {
    timer = undefined;
    if (!pending) return; // the reader is busy, not the client: armed again by the next read
    if (now() >= deadline()) cut?.();
    else arm();
  };
  try {
    for (;;) {
      pending = true;
      if (!timer) arm();
      const next = await new Promise<IteratorResult<T> | 'too_slow'>((resolve, reject) => {
        cut = () => resolve('too_slow');
        it.next()
          .finally(() => (pending = false))
          .then(resolve, reject);
      });
      cut = null;
      if (next === 'too_slow') {
        const kib = Math.round(received / 1024);
        throw new DomainError('upload_too_slow', `The upload was cut: ${kib} KiB in ${Math.round((now() - started) / 1000)} s is below the minimum of ${opts.bytesPerSecond / 1024} KiB/s`);
      }
      if (next.done) return;
      received += next.value.length;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    // A reader that stops early (a refusal mid-body) hands the source back: a request's iterator then
    // drops its 'readable' listener, without which the rest of the body could not be drained for a
    // clean error answer. With a read still waiting (a client too slow), that return runs once it ends.
    const done = it.return?.();
    if (!pending) await done;
    else void done?.catch(() => undefined);
  }
}
