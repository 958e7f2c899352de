import { compareNames, prepareName, tokenCache, type PreparedName } from './matching/name-matcher';
import { LOW_WEIGHT } from './matching/name-normalizer';
import { dobQualifier, nationalityQualifier } from './matching/qualifiers';
import type { MatchReason, SanctionsHit, ScreeningQuery } from './sanctions.model';
import type { ListSnapshot, SanctionsEntry } from '../../entities/list-snapshot.document';
import { DEFAULT_SCREENING_THRESHOLD } from './screening-query';

/** Weak aliases ("Low quality a.k.a") match by name only with this factor. */
export const WEAK_ALIAS_FACTOR = 0.85;
/** A single aligned part against a multi-part listed name is rarely the same person. */
export const SINGLE_PART_FACTOR = 0.75;
/** Names fully compared per query, chosen by blocking-key overlap. */
const MAX_CANDIDATES = 300;

interface IndexedName {
  entry: number;
  raw: string;
  weak: boolean;
  prepared: PreparedName;
}

export interface ScreenOptions {
  /** Minimum score of a hit. @default DEFAULT_SCREENING_THRESHOLD (0.70) */
  threshold?: number;
  /** @default 10 */
  limit?: number;
}

/** Blocking keys of a name: its substantial tokens, their phonetic keys, and article-joined forms. */
function blockingKeys(p: PreparedName): string[] {
  const keys = new Set<string>();
  p.tokens.forEach((t, i) => {
    if (t.length >= 2 && !LOW_WEIGHT.has(t)) {
      keys.add(t);
      if (p.folded[i] !== t) keys.add(p.folded[i]);
      if (p.keys[i].length >= 2) keys.add(`~${p.keys[i]}`);
      const stripped = /^(al|el|ul)(.{3,})$/.exec(t);
      if (stripped) keys.add(stripped[2]);
    }
    const next = p.tokens[i + 1];
    if (next && t.length <= 3) keys.add(t + next);
  });
  return [...keys];
}

/**
 * In-memory screening index over list snapshots. Built once per set of loaded versions and
 * swapped as a whole, so a screening never sees half a list.
 */
export class SanctionsIndex {
  private constructor(
    private readonly entries: SanctionsEntry[],
    private readonly versions: string[],
    private readonly names: IndexedName[],
    private readonly postings: Map<string, Uint32Array>,
  ) {
    this.votes = new Float64Array(names.length);
  }

  /** Scratch space for candidate voting, reused across screenings (screen is synchronous). */
  private readonly votes: Float64Array;

  static build(snapshots: ListSnapshot[]): SanctionsIndex {
    const entries: SanctionsEntry[] = [];
    const versions: string[] = [];
    const names: IndexedName[] = [];
    const lists = new Map<string, number[]>();
    for (const snap of snapshots) {
      for (const entry of snap.entries) {
        const e = entries.push(entry) - 1;
        versions.push(snap.version);
        for (const n of entry.names) {
          const prepared = prepareName(n.full);
          if (!prepared.tokens.length) continue;
          const id = names.push({ entry: e, raw: n.full, weak: n.strength === 'weak', prepared }) - 1;
          for (const k of blockingKeys(prepared)) {
            const l = lists.get(k);
            if (l) l.push(id);
            else lists.set(k, [id]);
          }
        }
      }
    }
    const postings = new Map<string, Uint32Array>();
    for (const [k, l] of lists) postings.set(k, Uint32Array.from(l));
    return new SanctionsIndex(entries, versions, names, postings);
  }

  get size(): { entries: number; names: number; keys: number } {
    return { entries: this.entries.length, names: this.names.length, keys: this.postings.size };
  }

  /**
   * Screens a validated query (see validateScreeningQuery). Hits are one per listed entry,
   * scored on its best name, best first.
   */
  screen(query: ScreeningQuery, opts: ScreenOptions = {}): SanctionsHit[] {
    const threshold = opts.threshold ?? DEFAULT_SCREENING_THRESHOLD;
    const limit = opts.limit ?? 10;
    const q = prepareName(query.fullName);
    if (q.tokens.join('').length < 2) return [];

    // Rarer keys say more: weigh each key hit by its inverse document frequency.
    const total = this.names.length || 1;
    const votes = this.votes;
    const touched: number[] = [];
    for (const k of blockingKeys(q)) {
      const list = this.postings.get(k);
      // A coarse phonetic key shared by a tenth of all names selects nothing; its token key still counts.
      if (!list || (k.startsWith('~') && list.length > total / 10)) continue;
      const idf = Math.log(1 + total / list.length);
      for (let i = 0; i < list.length; i++) {
        const id = list[i];
        if (votes[id] === 0) touched.push(id);
        votes[id] += idf;
      }
    }
    let candidates = touched;
    if (candidates.length > MAX_CANDIDATES) {
      // Partial selection by vote: a full sort of tens of thousands of ids costs more than scoring.
      let lo = 0;
      let hi = 0;
      for (const id of candidates) hi = Math.max(hi, votes[id]);
      for (let step = 0; step < 20; step++) {
        const mid = (lo + hi) / 2;
        let n = 0;
        for (const id of candidates) if (votes[id] >= mid) n++;
        if (n > MAX_CANDIDATES) lo = mid;
        else hi = mid;
      }
      candidates = candidates.filter((id) => votes[id] >= hi);
    }
    for (const id of touched) votes[id] = 0;

    const cache = tokenCache(q);
    const best = new Map<number, SanctionsHit>();
    for (const id of candidates) {
      const name = this.names[id];
      const quick = compareNames(q, name.prepared, cache, false);
      // Qualifiers add at most 0.15, so names that cannot reach the threshold stop here.
      if (quick.score < 0.5 || quick.score + 0.15 < threshold) continue;
      const cmp = compareNames(q, name.prepared, cache);
      const entry = this.entries[name.entry];
      const reasons: MatchReason[] = [{ feature: name.weak ? 'name_weak_alias' : 'name', score: round(cmp.score), detail: `"${query.fullName}" vs "${name.raw}": ${cmp.detail}` }];
      let score = cmp.score;
      if (name.weak) {
        reasons.push({ feature: 'weak_alias_penalty', score: round(score * WEAK_ALIAS_FACTOR - score), detail: 'the list marks this alias as low quality' });
        score *= WEAK_ALIAS_FACTOR;
      }
      const listedParts = name.prepared.weights.filter((w) => w >= 0.6).length;
      if (cmp.matchedUnits < 2 && listedParts >= 2) {
        reasons.push({ feature: 'single_part_penalty', score: round(score * SINGLE_PART_FACTOR - score), detail: `only one name part aligned with a ${listedParts}-part listed name` });
        score *= SINGLE_PART_FACTOR;
      }
      for (const r of [dobQualifier(query.birthDate, entry), nationalityQualifier(query.nationality, entry)]) {
        if (!r) continue;
        reasons.push(r);
        score += r.score;
      }
      score = round(Math.min(1, Math.max(0, score)));
      if (score < threshold) continue;
      const prev = best.get(name.entry);
      if (prev && prev.score >= score) continue;
      best.set(name.entry, {
        list: entry.list,
        entry_id: entry.entry_id,
        reference: entry.reference,
        programme: entry.programme,
        subject_type: entry.subject_type,
        matched_name: name.raw,
        score,
        reasons,
        list_version: this.versions[name.entry],
      });
    }
    return [...best.values()].sort((a, b) => b.score - a.score).slice(0, limit);
  }
}

const round = (x: number): number => Math.round(x * 1000) / 1000;
