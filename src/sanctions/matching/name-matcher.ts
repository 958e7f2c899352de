import { LOW_WEIGHT, normalizeName } from './name-normalizer';
import { foldRomanisation, phoneticKey } from './phonetic-key';
import { editDistance, jaroWinkler, withinOneEdit } from './string-similarity';

/** A name prepared once (at index build or per query) for repeated comparison. */
export interface PreparedName {
  tokens: string[];
  /** Romanisation-folded tokens (see foldRomanisation). */
  folded: string[];
  keys: string[];
  weights: number[];
  scripts: string[];
}

export function prepareName(raw: string): PreparedName {
  const { tokens, scripts } = normalizeName(raw);
  return {
    tokens,
    folded: tokens.map(foldRomanisation),
    keys: tokens.map(phoneticKey),
    weights: tokens.map(tokenWeight),
    scripts,
  };
}

function tokenWeight(t: string): number {
  if (LOW_WEIGHT.has(t)) return 0.25;
  if (/^\d+$/.test(t)) return 0.5;
  return t.length <= 2 ? 0.6 : 1;
}

type Kind = 'exact' | 'initial' | 'typo' | 'phonetic' | 'similar' | 'joined';

interface TokenScore {
  score: number;
  kind: Kind;
}

const NONE: TokenScore = { score: 0, kind: 'similar' };

/** Similarity of two normalised tokens; 0 when they should not be aligned at all. */
export function tokenSimilarity(a: string, b: string, fa: string, fb: string, ka: string, kb: string): TokenScore {
  if (a === b) return { score: 1, kind: 'exact' };
  if (a.length === 1 || b.length === 1) {
    const [short, long] = a.length === 1 ? [a, b] : [b, a];
    return long.length > 1 && long[0] === short ? { score: 0.7, kind: 'initial' } : NONE;
  }
  if (fa === fb) return { score: 0.95, kind: 'phonetic' };
  const minLen = Math.min(a.length, b.length, fa.length, fb.length);
  const maxLen = Math.max(a.length, b.length);
  const oneEdit = withinOneEdit(a, b) || withinOneEdit(fa, fb);
  if (minLen <= 3) {
    if (oneEdit && a[0] === b[0] && maxLen <= 4) return { score: 0.8, kind: 'typo' };
    return NONE;
  }
  const jw = Math.max(jaroWinkler(a, b), jaroWinkler(fa, fb));
  let best = NONE;
  if (oneEdit) best = { score: Math.max(jw, 0.92), kind: 'typo' };
  else if (minLen >= 7 && jw >= 0.85 && Math.min(editDistance(a, b), editDistance(fa, fb)) === 2) best = { score: Math.max(jw, 0.86), kind: 'typo' };
  if (ka === kb && ka.length >= 3 && jw >= 0.75 && Math.max(jw, 0.85) > best.score) best = { score: Math.max(jw, 0.85), kind: 'phonetic' };
  if (jw >= 0.9 && jw > best.score) best = { score: jw, kind: 'similar' };
  return best;
}

/**
 * Per-query memo of token similarities, one map per query token: listed names repeat the same
 * parts (Mohammed, Ali, Al ...) thousands of times, so each pair is computed once per query.
 */
export type TokenCache = Map<string, TokenScore>[];

export function tokenCache(q: PreparedName): TokenCache {
  return q.tokens.map(() => new Map<string, TokenScore>());
}

interface Unit {
  q: number[];
  c: number[];
  score: number;
  kind: Kind;
}

export interface NameComparison {
  /** Name similarity in [0, 1] before qualifiers. */
  score: number;
  matchedUnits: number;
  detail: string;
}

/** Weight of query parts the listed name lacks, and of listed parts the query lacks. */
const UNMATCHED_QUERY = 0.5;
const UNMATCHED_LISTED = 0.2;

/**
 * Aligns name parts greedily by best pair, in any order, allowing two adjacent parts on one side
 * to align with one joined part on the other ("Al Shanti" / "Alshanti", "Abdul Latif" / "Abdullatif").
 */
export function compareNames(q: PreparedName, c: PreparedName, cache?: TokenCache, explain = true): NameComparison {
  const units: Unit[] = [];
  for (let i = 0; i < q.tokens.length; i++) {
    const memo = cache?.[i];
    for (let j = 0; j < c.tokens.length; j++) {
      let s = memo?.get(c.tokens[j]);
      if (!s) {
        s = tokenSimilarity(q.tokens[i], c.tokens[j], q.folded[i], c.folded[j], q.keys[i], c.keys[j]);
        memo?.set(c.tokens[j], s);
      }
      if (s.score > 0) units.push({ q: [i], c: [j], score: s.score, kind: s.kind });
    }
  }
  const joined = (side: PreparedName, other: PreparedName, sideIsQuery: boolean): void => {
    for (let i = 0; i + 1 < side.tokens.length; i++) {
      const glued = side.tokens[i] + side.tokens[i + 1];
      for (let j = 0; j < other.tokens.length; j++) {
        const t = other.tokens[j];
        if (t.length < 4 || Math.abs(t.length - glued.length) > 2) continue;
        const s = t === glued ? 1 : jaroWinkler(glued, t);
        if (s >= 0.9) units.push(sideIsQuery ? { q: [i, i + 1], c: [j], score: s, kind: 'joined' } : { q: [j], c: [i, i + 1], score: s, kind: 'joined' });
      }
    }
  };
  joined(q, c, true);
  joined(c, q, false);
  // Both sides split differently ("Hon-Gsop" typed for "Hong-Sop").
  for (let i = 0; i + 1 < q.tokens.length; i++) {
    const gq = q.tokens[i] + q.tokens[i + 1];
    for (let j = 0; j + 1 < c.tokens.length; j++) {
      const gc = c.tokens[j] + c.tokens[j + 1];
      if (gq === q.tokens[i] + c.tokens[j + 1] && q.tokens[i] === c.tokens[j]) continue;
      if (Math.abs(gq.length - gc.length) > 1 || gq.length < 5) continue;
      const s = gq === gc ? 1 : withinOneEdit(gq, gc) ? 0.92 : 0;
      if (s > 0) units.push({ q: [i, i + 1], c: [j, j + 1], score: s, kind: 'joined' });
    }
  }
  units.sort((x, y) => y.score - x.score || x.q.length + x.c.length - (y.q.length + y.c.length));

  const usedQ = new Uint8Array(q.tokens.length);
  const usedC = new Uint8Array(c.tokens.length);
  const chosen: Unit[] = [];
  for (const u of units) {
    if (u.q.some((i) => usedQ[i]) || u.c.some((j) => usedC[j])) continue;
    u.q.forEach((i) => (usedQ[i] = 1));
    u.c.forEach((j) => (usedC[j] = 1));
    chosen.push(u);
  }

  let matched = 0;
  let matchedWeight = 0;
  let substantive = 0;
  for (const u of chosen) {
    const w = Math.max(sum(u.q.map((i) => q.weights[i])), sum(u.c.map((j) => c.weights[j])));
    matched += u.score * w;
    matchedWeight += w;
    if (w >= 0.6) substantive++;
  }
  let missingQ = 0;
  let missingC = 0;
  q.weights.forEach((w, i) => (missingQ += usedQ[i] ? 0 : w));
  c.weights.forEach((w, j) => (missingC += usedC[j] ? 0 : w));
  const denominator = matchedWeight + UNMATCHED_QUERY * missingQ + UNMATCHED_LISTED * missingC;
  const score = denominator > 0 ? matched / denominator : 0;
  // Explanations are strings; build them only for names that become hits.
  if (!explain) return { score, matchedUnits: substantive, detail: '' };

  const parts = chosen.map((u) => {
    const qt = u.q.map((i) => q.tokens[i]).join(' ');
    const ct = u.c.map((j) => c.tokens[j]).join(' ');
    return u.kind === 'exact' ? qt : `${qt}~${ct} (${u.kind} ${u.score.toFixed(2)})`;
  });
  const unq = q.tokens.filter((_, i) => !usedQ[i]);
  const unc = c.tokens.filter((_, j) => !usedC[j]);
  let detail = `aligned: ${parts.join(', ') || 'nothing'}`;
  if (unq.length) detail += `; not in listed name: ${unq.join(' ')}`;
  if (unc.length) detail += `; not in query: ${unc.join(' ')}`;
  if (c.scripts.length || q.scripts.length) detail += `; transliterated from ${[...new Set([...q.scripts, ...c.scripts])].join('/')}`;
  return { score, matchedUnits: substantive, detail };
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
