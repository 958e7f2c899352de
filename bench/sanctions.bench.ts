/**
 * `npm run bench:sanctions`: index a corpus the size of the five full lists together
 * (~25,000 subjects, ~100,000 names) and screen 10,000 queries.
 *
 * The corpus is the committed fixtures enlarged at run time with perturbed copies (names
 * recombined from listed name parts, typos, shuffled dates), so nothing large lives in git.
 */
import { performance } from 'node:perf_hooks';
import { loadFixtureSnapshots } from '../src/sanctions/eval/fixture-snapshots';
import { pick, rng, toCyrillic, typo } from '../src/sanctions/eval/perturb';
import { SanctionsIndex } from '../src/sanctions/sanctions-index';
import type { ScreeningQuery } from '../src/sanctions/sanctions.model';
import type { ListSnapshot, SanctionsEntry } from '../entities/list-snapshot.document';
import { DEFAULT_SCREENING_THRESHOLD } from '../src/sanctions/screening-query';

const SUBJECTS = 25_000;
const QUERIES = 10_000;

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MB`;

function enlarge(base: ListSnapshot[]): ListSnapshot[] {
  const r = rng(7);
  const entries = base.flatMap((s) => s.entries);
  const parts = [...new Set(entries.flatMap((e) => e.names.flatMap((n) => n.full.split(/[\s,]+/)).filter((p) => /^\p{L}{3,}$/u.test(p))))];
  const perList = new Map<string, SanctionsEntry[]>();
  for (let i = 0; i < SUBJECTS - entries.length; i++) {
    const src = entries[i % entries.length];
    const n = 2 + Math.floor(r() * 2);
    const primary = Array.from({ length: n }, () => pick(r, parts)).join(' ');
    const names = [{ full: primary, strength: 'strong' as const, kind: 'primary' }];
    const aliases = 2 + Math.floor(r() * 3);
    for (let a = 0; a < aliases; a++) {
      const roll = r();
      const full = roll < 0.4 ? primary.split(' ').map((p) => (r() < 0.5 ? typo(r, p) : p)).join(' ') : roll < 0.55 ? toCyrillic(primary) : Array.from({ length: n }, () => pick(r, parts)).join(' ');
      names.push({ full, strength: r() < 0.15 ? ('weak' as never) : 'strong', kind: 'aka' });
    }
    const copy: SanctionsEntry = { ...src, entry_id: `${src.entry_id}-x${i}`, names, extra: {} };
    const list = perList.get(src.list) ?? [];
    list.push(copy);
    perList.set(src.list, list);
  }
  return [
    ...base,
    ...[...perList].map(([list, es]) => ({ ...base.find((b) => b.list === list)!, version: `${list}-bench`, entries: es, warnings: [] })),
  ];
}

function queries(entries: SanctionsEntry[]): ScreeningQuery[] {
  const r = rng(11);
  const out: ScreeningQuery[] = [];
  const given = ['John', 'Maria', 'Wei', 'Olga', 'Ahmed', 'Fatima', 'Carlos', 'Priya', 'Hans', 'Yuki'];
  const family = ['Smith', 'Garcia', 'Ivanova', 'Khan', 'Nguyen', 'Muller', 'Rossi', 'Tanaka', 'Silva', 'Haddad'];
  while (out.length < QUERIES) {
    const roll = r();
    if (roll < 0.5) {
      const e = pick(r, entries);
      const name = pick(r, e.names).full;
      out.push({ fullName: r() < 0.5 ? name.split(/\s+/).map((p) => (r() < 0.3 ? typo(r, p) : p)).join(' ') : name, birthDate: r() < 0.3 ? String(1940 + Math.floor(r() * 60)) : undefined });
    } else {
      out.push({ fullName: `${pick(r, given)} ${pick(r, family)}`, nationality: r() < 0.3 ? 'GB' : undefined });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const base = await loadFixtureSnapshots();
  const snapshots = enlarge(base);
  const subjects = snapshots.reduce((n, s) => n + s.entries.length, 0);
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;

  const t0 = performance.now();
  const index = SanctionsIndex.build(snapshots);
  const loadMs = performance.now() - t0;
  global.gc?.();
  const mem = process.memoryUsage();

  const qs = queries(snapshots.flatMap((s) => s.entries));
  for (const q of qs.slice(0, 200)) index.screen(q, { threshold: DEFAULT_SCREENING_THRESHOLD });
  const times = new Float64Array(qs.length);
  let hits = 0;
  for (let i = 0; i < qs.length; i++) {
    const t = performance.now();
    hits += index.screen(qs[i], { threshold: DEFAULT_SCREENING_THRESHOLD, limit: 10 }).length;
    times[i] = performance.now() - t;
  }
  times.sort();
  const pct = (p: number): string => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(3);
  const total = times.reduce((a, b) => a + b, 0);

  console.log(`corpus: ${subjects} subjects, ${index.size.names} names, ${index.size.keys} blocking keys`);
  console.log(`index build (load): ${(loadMs / 1000).toFixed(2)} s   (goal < 10 s)`);
  console.log(`screening ${qs.length} queries: p50 ${pct(0.5)} ms  p95 ${pct(0.95)} ms  p99 ${pct(0.99)} ms  max ${times[times.length - 1].toFixed(3)} ms  (goal p99 < 10 ms); ${(qs.length / (total / 1000)).toFixed(0)} queries/s; ${hits} hits`);
  console.log(`memory after build: rss ${mb(mem.rss)}, heap used ${mb(mem.heapUsed)} (index ≈ ${mb(mem.heapUsed - heapBefore)} over the loaded snapshots)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
