import type { MrzEvalRow } from './eval-mrz';

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)} %`);
const percentile = (xs: number[], p: number) => (xs.length ? Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)]) : 0);

/** A fail is excused only by what the zone itself says: a check digit that does not hold, or an expiry date. */
const failedOnZone = (reason: string) => /check digit|expired|does not validate/i.test(reason);

function cell(sel: MrzEvalRow[]) {
  const verdicts = Object.fromEntries(['pass', 'review', 'fail', 'error'].map((v) => [v, sel.filter((r) => r.verdict === v).length]));
  return {
    documents: sel.length,
    passedExact: `${sel.filter((r) => r.exact).length} (${pct(sel.filter((r) => r.exact).length, sel.length)})`,
    wrongFieldButPassed: sel.filter((r) => r.wrongButPassed).length,
    verdicts,
    failNotOnZone: sel.filter((r) => r.verdict === 'fail' && !failedOnZone(r.reason)).length,
    msP50: percentile(sel.map((r) => r.ms), 0.5),
    msP99: percentile(sel.map((r) => r.ms), 0.99),
    ocrReadings: Object.fromEntries([...new Set(sel.map((r) => r.readings))].sort((a, b) => a - b).map((n) => [n, sel.filter((r) => r.readings === n).length])),
  };
}

/**
 * The evaluation's figures: per set and kind (clean, degraded, invalid), per format; for the held-out set
 * also per effect, font, weight and renderer; every document short of an exact pass with its reason.
 */
export function summariseMrz(rows: MrzEvalRow[]) {
  const out: Record<string, unknown> = {};
  for (const set of ['tuning', 'heldout'] as const) {
    const ofSet = rows.filter((r) => r.set === set);
    if (!ofSet.length) continue;
    const s: Record<string, unknown> = {};
    for (const kind of ['clean', 'degraded', 'handheld', 'invalid'] as const) {
      const ofKind = ofSet.filter((r) => r.kind === kind);
      if (!ofKind.length) continue;
      if (kind === 'invalid') {
        s.invalid = {
          documents: ofKind.length,
          passed: ofKind.filter((r) => r.verdict === 'pass').length,
          byKind: Object.fromEntries(['check-digit', 'expired', 'composite'].map((k) => [k, cell(ofKind.filter((r) => r.invalid === k)).verdicts])),
        };
        continue;
      }
      const k: Record<string, unknown> = { all: cell(ofKind) };
      for (const format of ['TD1', 'TD2', 'TD3']) k[format] = cell(ofKind.filter((r) => r.format === format));
      if (set === 'heldout' && kind === 'degraded') {
        const effects = [...new Set(ofKind.flatMap((r) => r.effects))].sort();
        k.byEffect = Object.fromEntries(effects.map((e) => { const c = cell(ofKind.filter((r) => r.effects.includes(e))); return [e, `${c.passedExact} of ${c.documents}`]; }));
      }
      if (set === 'heldout')
        for (const what of ['font', 'weight', 'renderer'] as const) {
          const values = [...new Set(ofKind.map((r) => r.look![what]))].sort();
          k[`by${what[0].toUpperCase()}${what.slice(1)}`] = Object.fromEntries(values.map((v) => { const c = cell(ofKind.filter((r) => r.look![what] === v)); return [v, `${c.passedExact} of ${c.documents}`]; }));
        }
      s[kind] = k;
    }
    s.notExact = ofSet
      .filter((r) => (r.kind === 'invalid' ? r.verdict === 'pass' : !r.exact))
      .map((r) => ({ index: r.index, kind: r.kind, format: r.format, verdict: r.verdict, ...(r.effects.length ? { effects: r.effects.join(',') } : {}), ...(r.look ? r.look : {}), reason: r.reason.slice(0, 400) }));
    out[set] = s;
  }
  return out;
}
