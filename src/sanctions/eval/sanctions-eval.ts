import type { SanctionsIndex } from '../sanctions-index';
import type { SanctionsHit } from '../sanctions.model';
import type { EvalQuery } from './build-eval-set';

export interface EvalResult {
  threshold: number;
  queries: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  misses: { id: string; kind: string; name: string; expected: string; got: string }[];
  falseAlarms: { id: string; kind: string; name: string; got: string }[];
}

const describe = (hits: SanctionsHit[]): string => hits.slice(0, 2).map((h) => `${h.list}:${h.entry_id} "${h.matched_name}" ${h.score}`).join(' | ') || 'no hit';

/**
 * Alert-level evaluation, as a screening analyst sees it: a positive query is a true positive
 * when its listed entry is among the hits; a negative query is a false positive when it raises
 * any hit at all.
 */
export function evaluate(index: SanctionsIndex, queries: EvalQuery[], threshold: number): EvalResult {
  const res: EvalResult = { threshold, queries: queries.length, tp: 0, fp: 0, fn: 0, tn: 0, precision: 0, recall: 0, misses: [], falseAlarms: [] };
  for (const q of queries) {
    const hits = index.screen(q.query, { threshold, limit: 20 });
    if (q.expect) {
      const { list, entry_id } = q.expect;
      if (hits.some((h) => h.list === list && h.entry_id === entry_id)) res.tp++;
      else {
        res.fn++;
        res.misses.push({ id: q.id, kind: q.kind, name: `${q.query.fullName} ${q.query.birthDate ?? ''}`.trim(), expected: `${list}:${entry_id}`, got: describe(hits) });
      }
    } else if (hits.length) {
      res.fp++;
      res.falseAlarms.push({ id: q.id, kind: q.kind, name: `${q.query.fullName} ${q.query.birthDate ?? ''}`.trim(), got: describe(hits) });
    } else res.tn++;
  }
  res.precision = res.tp + res.fp ? res.tp / (res.tp + res.fp) : 1;
  res.recall = res.tp + res.fn ? res.tp / (res.tp + res.fn) : 1;
  return res;
}
