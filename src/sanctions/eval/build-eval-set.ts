/**
 * Builds the labelled evaluation set (queries.json) from the committed fixtures. Deterministic:
 * run it again and the file is byte-identical. `npx tsc -p bench/sanctions.tsconfig.json &&
 * node dist/sanctions-tools/src/sanctions/eval/build-eval-set.js`
 *
 * Labels: a positive names one listed entry (list + entry_id) that must be among the hits.
 * A negative must raise no hit at all. Negatives are constructed so that no listed name
 * resembles them in two or more substantive parts (Jaro-Winkler >= 0.88 per part, a criterion
 * independent of the matcher's scoring), except the near-DOB negatives, which reuse a listed
 * name with a date of birth 3 or more years away from every listed date of every entry with
 * that name.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { yearSpan } from '../birth-date.parser';
import { LOW_WEIGHT, normalizeName } from '../matching/name-normalizer';
import { jaroWinkler } from '../matching/string-similarity';
import type { ScreeningQuery } from '../sanctions.model';
import type { SanctionsEntry } from '../../../entities/list-snapshot.document';
import { loadFixtureSnapshots } from './fixture-snapshots';
import { accent, pick, rng, toCyrillic, toGreek, typo } from './perturb';

export interface EvalQuery {
  id: string;
  kind: string;
  query: ScreeningQuery;
  /** The entry that must be hit, or null for a negative. */
  expect: { list: string; entry_id: string } | null;
}

const GIVEN = ['John', 'Maria', 'David', 'Anna', 'Peter', 'Elena', 'Wei', 'Yuki', 'Carlos', 'Fatima', 'Sara', 'Olga', 'Pierre', 'Hans', 'Lucia', 'Priya', 'Raj', 'Luis', 'Sofia', 'Michael', 'James', 'Robert', 'Aisha', 'Yusuf', 'Nadia', 'Leila', 'Dmitri', 'Natalia', 'Giorgos', 'Eleni', 'Thomas', 'Laura', 'Jan', 'Ewa', 'Mehmet', 'Ayse', 'Kenji', 'Mei', 'Tariq', 'Rania', 'Samir', 'Karim', 'Youssef', 'Amina', 'Bilal', 'Zainab', 'Oleksandr', 'Iryna', 'Jorge', 'Ana'];
const FAMILY = ['Smith', 'Johnson', 'Garcia', 'Muller', 'Rossi', 'Dubois', 'Ivanov', 'Petrova', 'Wang', 'Nguyen', 'Kumar', 'Patel', 'Silva', 'Santos', 'Kowalski', 'Novak', 'Jensen', 'Hansen', 'Yilmaz', 'Demir', 'Haddad', 'Khoury', 'Mansour', 'Rahman', 'Qureshi', 'Siddiqui', 'Papadopoulos', 'Georgiou', 'Tanaka', 'Sato', 'Park', 'Brown', 'Taylor', 'Wilson', 'Martin', 'Anderson', 'Lopez', 'Gonzalez', 'Fischer', 'Weber', 'Schneider', 'Moreau', 'Laurent', 'Bianchi', 'Romano', 'Costa', 'Ferreira', 'Bakker', 'Larsen', 'Horvat'];

const substantive = (name: string): string[] => normalizeName(name).tokens.filter((t) => t.length >= 3 && !LOW_WEIGHT.has(t));
const isLatin = (s: string): boolean => !/[^\p{Script=Latin}\p{P}\p{Zs}\d]/u.test(s);

function resemblingParts(a: string[], b: string[]): number {
  const used = new Set<number>();
  let n = 0;
  for (const x of a) {
    const j = b.findIndex((y, k) => !used.has(k) && jaroWinkler(x, y) >= 0.88);
    if (j >= 0) {
      used.add(j);
      n++;
    }
  }
  return n;
}

async function main(): Promise<void> {
  const snapshots = await loadFixtureSnapshots();
  const entries = snapshots.flatMap((s) => s.entries);
  const allNames = entries.flatMap((e) => e.names.map((n) => ({ entry: e, tokens: substantive(n.full) })));
  const resemblesListed = (name: string, min = 2): boolean => {
    const t = substantive(name);
    return allNames.some((n) => resemblingParts(t, n.tokens) >= Math.min(min, Math.max(1, n.tokens.length)));
  };
  const r = rng(20240506);
  const out: EvalQuery[] = [];
  const seen = new Set<string>();
  const add = (kind: string, query: ScreeningQuery, e: SanctionsEntry | null): void => {
    const key = `${query.fullName}|${query.birthDate ?? ''}|${query.nationality ?? ''}|${e?.list}:${e?.entry_id}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ id: `q${String(out.length + 1).padStart(4, '0')}`, kind, query, expect: e ? { list: e.list, entry_id: e.entry_id } : null });
  };

  const people = entries.filter((e) => e.subject_type === 'person');
  for (const e of people) {
    const primary = e.names.find((n) => n.strength === 'strong' && isLatin(n.full) && substantive(n.full).length >= 2);
    if (!primary) continue;
    const plain = primary.full.includes(',') ? primary.full.split(',').reverse().map((s) => s.trim()).join(' ') : primary.full;
    const tokens = plain.split(/\s+/);
    const dob = e.birth_dates.find((d) => d.kind === 'exact') ?? e.birth_dates.find((d) => d.kind === 'year');
    add('exact', { fullName: primary.full }, e);
    add('order_swap', { fullName: [...tokens.slice(-1), ...tokens.slice(0, -1)].join(' ') }, e);
    const core = tokens.filter((t) => substantive(t).length === 1);
    if (core.length >= 3) add('missing_middle', { fullName: [core[0], core[core.length - 1]].join(' ') }, e);
    const longest = tokens.reduce((a, b) => (b.length > a.length ? b : a));
    if (longest.length >= 5) add('typo', { fullName: tokens.map((t) => (t === longest ? typo(r, t) : t)).join(' ') }, e);
    if (tokens.length >= 2 && tokens[0].length > 2) add('initial', { fullName: [`${tokens[0][0]}.`, ...tokens.slice(1)].join(' ') }, e);
    add('cyrillic', { fullName: toCyrillic(plain) }, e);
    if (r() < 0.5) add('greek', { fullName: toGreek(plain) }, e);
    add('diacritics', { fullName: accent(r, plain.toLowerCase()) }, e);
    if (/-/.test(plain)) add('hyphen', { fullName: plain.replace(/-/g, r() < 0.5 ? '' : ' ') }, e);
    if (dob) add('with_dob', { fullName: plain, birthDate: dob.kind === 'exact' ? dob.from : dob.from.slice(0, 4) }, e);
    if (dob && longest.length >= 5) add('typo_with_dob', { fullName: tokens.map((t) => (t === longest ? typo(r, t) : t)).join(' '), birthDate: dob.from.slice(0, 4) }, e);
    if (e.nationalities[0]) add('with_nationality', { fullName: plain, nationality: e.nationalities[0] }, e);
    for (const alias of e.names.filter((n) => n !== primary && n.kind !== 'original_script' && n.strength === 'strong' && isLatin(n.full) && substantive(n.full).length >= 2).slice(0, 2)) add('alias', { fullName: alias.full }, e);
    const script = e.names.find((n) => n.kind === 'original_script');
    if (script) add('original_script', { fullName: script.full }, e);

    // Hard negatives around this person.
    const surname = tokens[tokens.length - 1];
    if (substantive(surname).length === 1) {
      for (let i = 0; i < 10; i++) {
        const name = `${pick(r, GIVEN)} ${surname}`;
        if (!resemblesListed(name)) {
          add('neg_same_surname', { fullName: name }, null);
          break;
        }
      }
    }
    if (substantive(tokens[0]).length === 1) {
      for (let i = 0; i < 10; i++) {
        const name = `${tokens[0]} ${pick(r, FAMILY)}`;
        if (!resemblesListed(name)) {
          add('neg_same_given', { fullName: name }, null);
          break;
        }
      }
    }
    if (dob) {
      const sharing = entries.filter((x) => x.names.some((n) => resemblingParts(substantive(plain), substantive(n.full)) >= 2));
      const spans = sharing.flatMap((x) => x.birth_dates.map(yearSpan));
      const undated = sharing.some((x) => x.birth_dates.length === 0);
      const year = Number(dob.from.slice(0, 4)) + pick(r, [-6, -5, -4, -3, 3, 4, 5, 6]);
      if (!undated && spans.every(([lo, hi]) => year < lo - 2 || year > hi + 2)) {
        add('neg_near_dob', { fullName: plain, birthDate: `${year}${dob.from.slice(4)}` }, null);
      }
    }
  }
  for (let i = 0, made = 0; made < 160 && i < 2000; i++) {
    const name = r() < 0.2 ? `${pick(r, GIVEN)} ${pick(r, GIVEN)} ${pick(r, FAMILY)}` : `${pick(r, GIVEN)} ${pick(r, FAMILY)}`;
    if (resemblesListed(name)) continue;
    const query: ScreeningQuery = { fullName: r() < 0.3 ? name.split(' ').reverse().join(', ') : name };
    if (r() < 0.3) query.birthDate = String(1940 + Math.floor(r() * 60));
    const before = out.length;
    add('neg_common_name', query, null);
    if (out.length > before) made++;
  }
  writeFileSync(join(__dirname.replace(/dist[\\/]sanctions-tools[\\/]/, ''), 'queries.json'), JSON.stringify(out, null, 1) + '\n');
  const counts = out.reduce<Record<string, number>>((acc, q) => ((acc[q.kind] = (acc[q.kind] ?? 0) + 1), acc), {});
  console.log(`wrote ${out.length} queries`, counts);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
