import { SanctionsIndex } from './sanctions-index';
import { loadFixtureSnapshots } from './eval/fixture-snapshots';
import { DEFAULT_SCREENING_THRESHOLD } from './screening-query';
import type { ListSnapshot, SanctionsEntry } from '../../entities/list-snapshot.document';

let index: SanctionsIndex;
beforeAll(async () => {
  index = SanctionsIndex.build(await loadFixtureSnapshots());
});

const top = (fullName: string, extra: { birthDate?: string; nationality?: string } = {}) =>
  index.screen({ fullName, ...extra }, { threshold: DEFAULT_SCREENING_THRESHOLD })[0];

function person(id: string, names: { full: string; strength?: 'strong' | 'weak' }[], more: Partial<SanctionsEntry> = {}): SanctionsEntry {
  return {
    list: 'un', entry_id: id, reference: `CDi.${id}`, programme: 'TEST', subject_type: 'person',
    names: names.map((n) => ({ full: n.full, strength: n.strength ?? 'strong', kind: 'primary' })),
    birth_dates: [], nationalities: [], places_of_birth: [], documents: [], extra: {}, ...more,
  };
}
const snap = (entries: SanctionsEntry[]): ListSnapshot => ({ list: 'un', format: 'un_xml', version: 'un-test-1', source_file: 't', loaded_at: '2026-01-01T00:00:00Z', entries, warnings: [] });

describe('SanctionsIndex.screen', () => {
  it('finds a listed name written "Given SURNAME" when the list says "SURNAME, Given"', () => {
    expect(top('Ismail Abdul Salah Haniya')).toMatchObject({ list: 'ofac', entry_id: '9639', score: 1, list_version: expect.stringMatching(/^ofac-2024-05-06-/) });
  });

  it('tolerates a typo and a missing middle name, and explains the alignment', () => {
    const hit = top('Ismail Hanyia');
    expect(hit).toMatchObject({ entry_id: '9639', matched_name: 'HANIYA, Ismail' });
    expect(hit.score).toBeGreaterThan(0.9);
    expect(hit.reasons[0]).toMatchObject({ feature: 'name' });
    expect(hit.reasons[0].detail).toContain('hanyia~haniya (typo');
  });

  it('matches a Cyrillic transliteration of a listed name', () => {
    const hit = top('Мохаммад Хассан Ахунд');
    expect(hit.matched_name).toBe('MOHAMMAD HASSAN AKHUND');
    expect(hit.reasons[0].detail).toContain('transliterated from cyrillic');
  });

  it('matches a Greek transliteration of a listed name', () => {
    expect(top('Ισμαήλ Χανίγια')?.entry_id).toBe('9639');
  });

  it('matches an Arabic-script query against the Latin and original-script names', () => {
    const hit = index.screen({ fullName: 'عبود الزمر' }, { threshold: 0.7 }).find((h) => h.entry_id === '2677');
    expect(hit).toBeDefined();
  });

  it('matches joined and hyphenated spellings of an article ("Alzomor" / "Al-Zomor")', () => {
    expect(top('Abboud Alzomor')?.entry_id).toBe('2677');
  });

  it('raises the score for a matching date of birth and pulls an identical name below the threshold for a distant one', () => {
    const plain = top('Mohammad Hassan Akhund');
    const same = top('Mohammad Hassan Akhund', { birthDate: '1958-05-12' });
    expect(same.reasons).toContainEqual(expect.objectContaining({ feature: 'dob_match', score: 0.1 }));
    expect(same.score).toBeGreaterThanOrEqual(plain.score);
    expect(top('Mohammad Hassan Akhund', { birthDate: '1990-05-12' })).toBeUndefined();
    const far = index.screen({ fullName: 'Mohammad Hassan Akhund', birthDate: '1990-05-12' }, { threshold: 0 })[0];
    expect(far.reasons).toContainEqual(expect.objectContaining({ feature: 'dob_mismatch', score: -0.35 }));
  });

  it('lowers the score when the nationality contradicts the listed ones', () => {
    const fit = index.screen({ fullName: 'Mohammad Hassan Akhund', nationality: 'AF' }, { threshold: 0 })[0];
    const misfit = index.screen({ fullName: 'Mohammad Hassan Akhund', nationality: 'FR' }, { threshold: 0 })[0];
    expect(fit.score).toBeGreaterThan(misfit.score);
    expect(misfit.reasons).toContainEqual(expect.objectContaining({ feature: 'nationality_mismatch' }));
  });

  it('weighs a weak alias below the same name listed as strong', () => {
    const idx = SanctionsIndex.build([snap([person('1', [{ full: 'Boris Kalinin', strength: 'weak' }]), person('2', [{ full: 'Boris Kalinin' }])])]);
    const hits = idx.screen({ fullName: 'Boris Kalinin' }, { threshold: 0.5 });
    expect(hits.map((h) => [h.entry_id, h.reference, h.score])).toEqual([['2', 'CDi.2', 1], ['1', 'CDi.1', 0.85]]);
    expect(hits[1].reasons).toContainEqual(expect.objectContaining({ feature: 'weak_alias_penalty' }));
  });

  it('does not alert on a shared surname alone or on common names', () => {
    expect(top('Ahmed Haniya')).toBeUndefined();
    expect(top('John Smith')).toBeUndefined();
    expect(top('Maria Garcia')).toBeUndefined();
  });

  it('matches an initial for a given name', () => {
    const idx = SanctionsIndex.build([snap([person('1', [{ full: 'Viktor Anatolyevich Bout' }])])]);
    expect(idx.screen({ fullName: 'V. A. Bout' }, { threshold: 0.7 })[0]?.entry_id).toBe('1');
    expect(idx.screen({ fullName: 'V. Bout' }, { threshold: 0.7 })[0]?.reasons[0].detail).toContain('v~viktor (initial');
    expect(idx.screen({ fullName: 'X. Bout' }, { threshold: 0.7 })).toEqual([]);
  });

  it('returns one hit per entry, best first, within the limit and with scores in [0, 1]', () => {
    const hits = index.screen({ fullName: 'Mohammad Akhund' }, { threshold: 0.5, limit: 3 });
    expect(hits.length).toBeLessThanOrEqual(3);
    expect(new Set(hits.map((h) => `${h.list}:${h.entry_id}`)).size).toBe(hits.length);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    for (const h of hits) {
      expect(h.score).toBeGreaterThanOrEqual(0);
      expect(h.score).toBeLessThanOrEqual(1);
    }
  });

  it('never matches on a name that normalises to nothing', () => {
    expect(index.screen({ fullName: '!!! ---' }, { threshold: 0 })).toEqual([]);
  });
});
