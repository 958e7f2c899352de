import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startCommand } from '../test/helpers/start-command';
import { ROOT } from '../test/helpers/test-server';

/**
 * The largest the young generation grew (MB) while a thread allocated 2 million short-lived objects, some
 * of them kept a while (so V8 grows it as far as it may): in the main thread, and in a worker thread started
 * after `workerThreadsSizeTheirOwnYoungGeneration()` ran.
 */
const PROBE = `
const { Worker } = require('node:worker_threads');
const grown = \`(() => {
  const v8 = require('node:v8');
  let kept = [], most = 0;
  for (let i = 0; i < 2e6; i++) {
    kept.push({ i, a: [i] });
    if (kept.length > 200000) kept = [];
    if (i % 10000 === 0) most = Math.max(most, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
  }
  return most / 2 ** 20;
})()\`;
const main = eval(grown);
require(process.env.MODULE).workerThreadsSizeTheirOwnYoungGeneration();
new Worker(\`require('node:worker_threads').parentPort.postMessage(\${grown})\`, { eval: true }).on('message', (worker) => {
  console.log(JSON.stringify({ main, worker }));
  process.exit(0);
});
`;

describe("the server's young generation (docs/operations.md, \"The server's heap\")", () => {
  it("npm start's flags keep the main thread's small; worker threads started after the call size theirs as V8 does", () => {
    const { nodeFlags } = startCommand(ROOT);
    expect(nodeFlags).toContain('--max-semi-space-size=4');
    const module = path.join(ROOT, 'dist', 'app', 'worker-young-generation.js');
    const out = JSON.parse(execFileSync(process.execPath, [...nodeFlags, '-e', PROBE], { env: { PATH: process.env.PATH, MODULE: module }, encoding: 'utf8' })) as { main: number; worker: number };
    // Two semi-spaces of at most 4 MB each.
    expect(out.main).toBeLessThanOrEqual(8);
    // V8's own sizing on a 64-bit machine: semi-spaces of up to 16 MB, which the probe fills.
    expect(out.worker).toBeGreaterThan(8);
  }, 60_000);
});
