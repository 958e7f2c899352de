import { performance } from 'node:perf_hooks';

/** A store call that did not answer in time: the caller falls back (src/rate-limit/slice-store.ts). */
export class DeadlineError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/** The deadline's clock ticks this often while it waits; a tick never counts more than twice this. */
const TICK_MS = 50;

/**
 * `work`'s result, or a DeadlineError once it has waited `ms` of the time this process ran. A process
 * that is not run for a while (a long collection, a machine whose CPUs other processes hold, SIGSTOP)
 * did not wait for the store then: it may not even have sent its command yet. So the wait is counted
 * in ticks, and a tick that comes late counts at most 2 x TICK_MS. And it is judged only after the
 * event loop has read its sockets once more: a process that wakes with its deadline and the store's
 * answer both due runs the due timer first (Node runs timers before it reads sockets), so a plain
 * timeout (ioredis's `commandTimeout`) calls lost an answer that has arrived. Judged in the check
 * phase (setImmediate), after the poll phase has handed on every answer received, only a store that
 * is really slow is called so.
 */
export function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let waited = 0;
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      waited += Math.min(now - last, 2 * TICK_MS);
      last = now;
      if (waited < ms) {
        timer = setTimeout(tick, Math.min(TICK_MS, ms - waited));
        return;
      }
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new DeadlineError(ms));
      });
    };
    let timer = setTimeout(tick, Math.min(TICK_MS, ms));
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done();
    };
    work.then(
      (value) => settle(() => resolve(value)),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}
