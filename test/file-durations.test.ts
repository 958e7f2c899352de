import fs from 'node:fs';
import path from 'node:path';

/**
 * The slowest-first sequencer (scripts/jest-slowest-first.js) orders test files by the committed record of
 * a full run. A record whose keys name no file orders nothing, silently: once every key carried the CI
 * clone's folder (`ci/src/...`) and the suite ran in alphabetical order. So every key must be a test file of
 * this checkout, relative to its root.
 */
const root = path.resolve(__dirname, '..');
const record = JSON.parse(fs.readFileSync(path.join(root, 'test', 'file-durations.json'), 'utf8')) as { seconds: Record<string, number> };

describe('the test-duration record the sequencer reads', () => {
  it('names test files of this checkout, by their path from its root', () => {
    const keys = Object.keys(record.seconds);
    expect(keys.length).toBeGreaterThan(100);
    const missing = keys.filter((k) => !fs.existsSync(path.join(root, k)));
    // A file renamed or removed since the record was written is tolerated, a few at most; a record of another
    // layout (every key missing) is not.
    expect(missing.length).toBeLessThanOrEqual(Math.floor(keys.length / 20));
  });
});
