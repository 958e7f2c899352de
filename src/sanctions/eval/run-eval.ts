/** `npm run eval:sanctions`: precision and recall of the committed evaluation set. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SanctionsIndex } from '../sanctions-index';
import { DEFAULT_SCREENING_THRESHOLD } from '../screening-query';
import type { EvalQuery } from './build-eval-set';
import { loadFixtureSnapshots } from './fixture-snapshots';
import { evaluate } from './sanctions-eval';

async function main(): Promise<void> {
  const dir = __dirname.replace(/dist[\\/]sanctions-tools[\\/]/, '');
  const queries = JSON.parse(readFileSync(join(dir, 'queries.json'), 'utf8')) as EvalQuery[];
  const index = SanctionsIndex.build(await loadFixtureSnapshots());
  const verbose = process.argv.includes('--verbose');
  for (const threshold of [DEFAULT_SCREENING_THRESHOLD, ...(verbose ? [0.6, 0.65, 0.75, 0.8] : [])]) {
    const r = evaluate(index, queries, threshold);
    const pos = r.tp + r.fn;
    console.log(
      `threshold ${threshold.toFixed(2)}: ${r.queries} queries (${pos} positive, ${r.queries - pos} negative)  ` +
        `precision ${r.precision.toFixed(4)}  recall ${r.recall.toFixed(4)}  (tp ${r.tp}, fp ${r.fp}, fn ${r.fn}, tn ${r.tn})`,
    );
    if (threshold === DEFAULT_SCREENING_THRESHOLD) {
      for (const m of r.misses) console.log(`  miss  ${m.id} [${m.kind}] "${m.name}" expected ${m.expected}; got ${m.got}`);
      for (const f of r.falseAlarms) console.log(`  false ${f.id} [${f.kind}] "${f.name}" got ${f.got}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
