#!/usr/bin/env node
/**
 * `node scripts/test-durations.js <jest --json output> [more outputs]`: writes test/file-durations.json, each
 * test file's seconds in the given run(s) (the longest where several runs name it), for the slowest-first
 * sequencer (scripts/jest-slowest-first.js), and prints the ten slowest.
 *
 * Keys are paths from the repository's root, whichever folder the run's checkout was in (CI runs in its own
 * clone): the sequencer looks them up by the path from this checkout's root, and matches nothing otherwise.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** A test file's path from the root of the checkout it ran in: the nearest folder holding jest.config.js and package.json. */
function recordKey(file) {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'jest.config.js')) && fs.existsSync(path.join(dir, 'package.json'))) return path.relative(dir, file).split(path.sep).join('/');
  }
  // That checkout is gone (a removed CI clone): the longest tail of the path naming a file of this checkout.
  const parts = file.split(/[\\/]/).filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const tail = parts.slice(i).join('/');
    if (fs.existsSync(path.join(root, tail))) return tail;
  }
  return null;
}

if (require.main === module) {
  const seconds = {};
  for (const file of process.argv.slice(2)) {
    const run = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const r of run.testResults) {
      const key = recordKey(r.name);
      if (!key) {
        console.error(`skipped ${r.name}: neither its checkout nor a file of this one`);
        continue;
      }
      const s = Math.round((r.endTime - r.startTime) / 100) / 10;
      seconds[key] = Math.max(seconds[key] ?? 0, s);
    }
  }
  const sorted = Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1]));
  fs.writeFileSync(path.join(root, 'test', 'file-durations.json'), `${JSON.stringify({ note: 'seconds per test file in a full run; see scripts/jest-slowest-first.js', seconds: sorted }, null, 1)}\n`);
  for (const [f, s] of Object.entries(sorted).slice(0, 10)) console.log(`${String(s).padStart(7)} s  ${f}`);
}

module.exports = { recordKey };
