import v8 from 'node:v8';

/**
 * `npm start` gives the server's main thread a 4 MB semi-space (`--max-semi-space-size=4`, docs/operations.md,
 * "The server's heap"): uploads churn through buffers whose bytes V8 counts against the old generation until a
 * young collection frees them, and a smaller young generation is collected sooner, so those bytes start fewer
 * full marks of the heap. V8's flags belong to the process, though, and every worker thread started later would
 * inherit it: the check engines' threads (src/checks/check-worker.pool.ts) were measured with V8's own sizing,
 * and keep it. The main thread's heap was sized when it started and is not changed by this; `0` tells V8 to size
 * each isolate created from now on itself.
 */
export function workerThreadsSizeTheirOwnYoungGeneration(): void {
  v8.setFlagsFromString('--max-semi-space-size=0');
}
