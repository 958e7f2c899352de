import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SanctionsIndex } from '../sanctions-index';
import { DEFAULT_SCREENING_THRESHOLD } from '../screening-query';
import type { EvalQuery } from './build-eval-set';
import { loadFixtureSnapshots } from './fixture-snapshots';
import { evaluate } from './sanctions-eval';

const queries = JSON.parse(readFileSync(join(__dirname, 'queries.json'), 'utf8')) as EvalQuery[];

describe('sanctions evaluation set', () => {
  it('holds at least 300 labelled queries with true variants and hard negatives', () => {
    expect(queries.length).toBeGreaterThanOrEqual(300);
    const kinds = new Set(queries.map((q) => q.kind));
    for (const k of ['order_swap', 'missing_middle', 'typo', 'cyrillic', 'greek', 'original_script', 'with_dob', 'neg_common_name', 'neg_same_surname', 'neg_near_dob']) expect(kinds).toContain(k);
  });

  it('meets recall >= 0.98 at precision >= 0.95 at the default threshold', async () => {
    const index = SanctionsIndex.build(await loadFixtureSnapshots());
    const r = evaluate(index, queries, DEFAULT_SCREENING_THRESHOLD);
    expect({ precision: r.precision >= 0.95, recall: r.recall >= 0.98, misses: r.recall >= 0.98 ? [] : r.misses, falseAlarms: r.precision >= 0.95 ? [] : r.falseAlarms }).toEqual({ precision: true, recall: true, misses: [], falseAlarms: [] });
  });
});
