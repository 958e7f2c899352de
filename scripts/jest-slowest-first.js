/**
 * Runs the slowest test files first, so that with two workers the run does not end on one long file started
 * last (issue 44: a fresh clone has no jest cache, and jest then orders by file size). The durations are a
 * committed record of an earlier full run (test/file-durations.json, written by `node scripts/test-durations.js
 * <jest --json output>`); a file it does not know runs after the known slow ones, an end-to-end file before a unit.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const RECORD = path.join(__dirname, '..', 'test', 'file-durations.json');

class SlowestFirst extends Sequencer {
  sort(tests) {
    const known = fs.existsSync(RECORD) ? JSON.parse(fs.readFileSync(RECORD, 'utf8')).seconds : {};
    const root = path.resolve(__dirname, '..');
    const guess = (file) => (/\/test\/e2e\//.test(file) ? 20 : 1);
    const seconds = (t) => known[path.relative(root, t.path).split(path.sep).join('/')] ?? guess(t.path);
    return [...tests].sort((a, b) => seconds(b) - seconds(a) || a.path.localeCompare(b.path));
  }
}

module.exports = SlowestFirst;
