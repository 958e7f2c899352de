import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The slowest-first sequencer (scripts/jest-slowest-first.js) orders test files by the committed record of a
 * full run (test/file-durations.json). A record whose keys name no file orders nothing, silently: once every
 * key carried the CI clone's folder (`ci/src/...`) and the suite ran in alphabetical order for days.
 */
const root = path.resolve(__dirname, '..');
const record = JSON.parse(fs.readFileSync(path.join(root, 'test', 'file-durations.json'), 'utf8')) as { seconds: Record<string, number> };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SlowestFirst = require('../scripts/jest-slowest-first.js') as new () => { sort(tests: { path: string }[]): { path: string }[] };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { recordKey } = require('../scripts/test-durations.js') as { recordKey(file: string): string | null };

describe('the test-duration record the sequencer reads', () => {
  it('names only test files of this checkout, by their path from its root', () => {
    const keys = Object.keys(record.seconds);
    expect(keys.length).toBeGreaterThan(100);
    // A test file renamed or removed: regenerate the record (scripts/test-durations.js) or drop its key.
    expect(keys.filter((k) => !k.endsWith('.test.ts') || !fs.existsSync(path.join(root, k)))).toEqual([]);
  });

  it('orders this checkout\'s files slowest first, unknown end-to-end files before unknown units', () => {
    const [slowest, second] = Object.entries(record.seconds).sort((a, b) => b[1] - a[1]);
    const fastUnit = Object.entries(record.seconds).find(([k, s]) => s < 5 && k.startsWith('src/'))![0];
    const tests = [fastUnit, 'test/e2e/not-in-the-record.test.ts', second[0], 'src/not-in-the-record.test.ts', slowest[0]].map((k) => ({ path: path.join(root, k) }));
    const order = new SlowestFirst().sort(tests).map((t) => path.relative(root, t.path).split(path.sep).join('/'));
    expect(order).toEqual([slowest[0], second[0], 'test/e2e/not-in-the-record.test.ts', fastUnit, 'src/not-in-the-record.test.ts']);
  });
});

describe('scripts/test-durations.js', () => {
  it('keys a result by its path from the root of the checkout it ran in, whatever that folder is called', () => {
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'durations-'));
    try {
      const checkout = path.join(clone, 'ci', 'src');
      fs.mkdirSync(path.join(checkout, 'test', 'e2e'), { recursive: true });
      for (const f of ['jest.config.js', 'package.json']) fs.writeFileSync(path.join(checkout, f), '');
      expect(recordKey(path.join(checkout, 'test', 'e2e', 'a.test.ts'))).toBe('test/e2e/a.test.ts');
      // A checkout since removed: the tail that names a file of this one.
      expect(recordKey(path.join(clone, 'gone', 'ci', 'test', 'file-durations.test.ts'))).toBe('test/file-durations.test.ts');
    } finally {
      fs.rmSync(clone, { recursive: true, force: true });
    }
  });
});
