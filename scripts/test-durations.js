#!/usr/bin/env node
/**
 * `node scripts/test-durations.js <jest --json output> [more outputs]`: writes test/file-durations.json, each
 * test file's seconds in the given run(s) (the longest where several runs name it), for the slowest-first
 * sequencer (scripts/jest-slowest-first.js), and prints the ten slowest.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const seconds = {};
for (const file of process.argv.slice(2)) {
  const run = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const r of run.testResults) {
    const rel = path.relative(root, r.name).replace(/^(\.\.\/)+[^/]+\//, '').split(path.sep).join('/');
    const s = Math.round((r.endTime - r.startTime) / 100) / 10;
    seconds[rel] = Math.max(seconds[rel] ?? 0, s);
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1]));
fs.writeFileSync(path.join(root, 'test', 'file-durations.json'), `${JSON.stringify({ note: 'seconds per test file in a full run; see scripts/jest-slowest-first.js', seconds: sorted }, null, 1)}\n`);
for (const [f, s] of Object.entries(sorted).slice(0, 10)) console.log(`${String(s).padStart(7)} s  ${f}`);
