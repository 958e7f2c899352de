import pino from 'pino';
import type { CurrentListVersion, SanctionsListRepository } from '../sanctions/sanctions-list.repository';
import type { SanctionsHit } from '../sanctions/sanctions.model';
import type { ListSnapshot } from '../../entities/list-snapshot.document';
import { SanctionsScreeningService, type Screening } from '../sanctions/screening.service';
import { identitiesToScreen, liveSanctionsCheck, mergeScreenings, screenIdentities } from './identity-screening';

const MRZ = { givenNames: 'ERIC', surname: 'BADEGE', dateOfBirth: '1971-01-01', nationality: 'COD' };

/** One UN version with two listed people, behind the repository calls the screening service makes. */
function screeningService(loaded = true): SanctionsScreeningService {
  const person = (id: string, name: string, year: string) => ({
    list: 'un' as const,
    entry_id: id,
    reference: `CDi.${id}`,
    programme: 'DRC',
    subject_type: 'person' as const,
    names: [{ full: name, strength: 'strong' as const, kind: 'primary' }],
    birth_dates: [{ kind: 'year' as const, from: year, to: year, raw: year }],
    nationalities: [],
    places_of_birth: [],
    documents: [],
    extra: {},
  });
  const snapshot: ListSnapshot = {
    list: 'un',
    format: 'un_xml',
    version: 'un-a',
    source_file: 'un.xml',
    loaded_at: '2026-11-22T00:00:00.000Z',
    warnings: [],
    entries: [person('1', 'ERIC BADEGE', '1971'), person('2', 'GASTON IYAMUREMYE', '1948')],
  };
  const current: CurrentListVersion[] = loaded ? [{ list: 'un', versionId: '1', version: 'un-a', loadedAt: new Date() }] : [];
  const repo = { currentVersions: async () => current, snapshot: async () => snapshot, tenantThreshold: async () => 0.7 };
  return new SanctionsScreeningService(repo as unknown as SanctionsListRepository, pino({ level: 'silent' }), 60_000);
}

describe('identitiesToScreen', () => {
  it("screens the MRZ's name, date of birth and nationality (ICAO alpha-3 as ISO alpha-2)", () => {
    expect(identitiesToScreen(MRZ, null)).toEqual({ identities: [{ source: 'document_mrz', query: { fullName: 'ERIC BADEGE', birthDate: '1971-01-01', nationality: 'CD' } }], rejected: [] });
    expect(identitiesToScreen({ ...MRZ, nationality: 'D<<' }, null).identities[0].query.nationality).toBe('DE');
  });

  it('screens once when the identity step confirms the same person (case, accents and order aside)', () => {
    const r = identitiesToScreen(MRZ, { given_names: 'Éric', surname: 'Badege', date_of_birth: '1971-01-01' });
    expect(r.identities.map((i) => i.source)).toEqual(['document_mrz']);
  });

  it('screens both when the confirmed name or date of birth differs from the MRZ', () => {
    const typed = identitiesToScreen({ ...MRZ, surname: 'BADEG' }, { given_names: 'Eric', surname: 'Badege', date_of_birth: '1971-01-01' });
    expect(typed.identities).toEqual([
      { source: 'document_mrz', query: { fullName: 'ERIC BADEG', birthDate: '1971-01-01', nationality: 'CD' } },
      { source: 'identity_step', query: { fullName: 'Eric Badege', birthDate: '1971-01-01' } },
    ]);
    const dob = identitiesToScreen(MRZ, { given_names: 'Eric', surname: 'Badege', date_of_birth: '1972-01-01' });
    expect(dob.identities.map((i) => i.query.birthDate)).toEqual(['1971-01-01', '1972-01-01']);
  });

  it('screens the identity step alone when nothing was read from the document', () => {
    expect(identitiesToScreen(undefined, { given_names: '', surname: 'Iyamuremye', date_of_birth: '1948-05-05' }).identities).toEqual([
      { source: 'identity_step', query: { fullName: 'Iyamuremye', birthDate: '1948-05-05' } },
    ]);
  });

  it('screens the name alone when the date cannot be used, and reports a name that cannot be screened', () => {
    expect(identitiesToScreen({ ...MRZ, dateOfBirth: '1971-13-45' }, null).identities).toEqual([{ source: 'document_mrz', query: { fullName: 'ERIC BADEGE', nationality: 'CD' } }]);
    const r = identitiesToScreen({ ...MRZ, givenNames: '', surname: 'X' }, null);
    expect(r.identities).toEqual([]);
    expect(r.rejected).toEqual([{ source: 'document_mrz', message: 'fullName must have at least 2 letters' }]);
    expect(identitiesToScreen(undefined, null)).toEqual({ identities: [], rejected: [] });
  });
});

describe('mergeScreenings', () => {
  const hit = (entry_id: string, score: number): SanctionsHit =>
    ({ list: 'un', entry_id, reference: entry_id, programme: 'P', subject_type: 'person', matched_name: 'N', score, reasons: [], list_version: 'un-a' }) as SanctionsHit;
  const s = (hits: SanctionsHit[]): Screening => ({ hits, lists: [{ list: 'un', version: 'un-a' }], threshold: 0.7 });

  it('keeps each entry once with its best score, best first, and the list versions once', () => {
    const merged = mergeScreenings([s([hit('1', 0.8), hit('2', 0.75)]), s([hit('1', 0.95)])]);
    expect(merged.hits.map((h) => [h.entry_id, h.score])).toEqual([
      ['1', 0.95],
      ['2', 0.75],
    ]);
    expect(merged.lists).toEqual([{ list: 'un', version: 'un-a' }]);
    expect(merged.threshold).toBe(0.7);
  });
});

describe('screenIdentities', () => {
  it("finds a listed person named only on the identity step when the MRZ's name differs", async () => {
    const { identities } = identitiesToScreen({ givenNames: 'JOHN', surname: 'SMITH', dateOfBirth: '1980-02-02' }, { given_names: 'Gaston', surname: 'Iyamuremye', date_of_birth: '1948-05-05' });
    const screening = await screenIdentities(screeningService(), 'tenant', identities);
    expect(screening.hits.map((h) => h.entry_id)).toEqual(['2']);
    expect(screening.lists).toEqual([{ list: 'un', version: 'un-a' }]);
  });

  it('finds nothing for a clean person, and still reports the lists screened against', async () => {
    const { identities } = identitiesToScreen({ givenNames: 'JOHN', surname: 'SMITH', dateOfBirth: '1980-02-02' }, null);
    expect(await screenIdentities(screeningService(), 'tenant', identities)).toEqual({ hits: [], lists: [{ list: 'un', version: 'un-a' }], threshold: 0.7 });
  });
});

describe('liveSanctionsCheck', () => {
  const CLEAN = { givenNames: 'JOHN', surname: 'SMITH', dateOfBirth: '1980-02-02' };

  it("is an error with the reason 'sanctions lists not loaded' when no list is in force", async () => {
    expect(await liveSanctionsCheck(screeningService(false), 't', MRZ, null)).toEqual({
      check: { name: 'sanctions_screening', status: 'error', reason: 'sanctions lists not loaded' },
      hits: [],
    });
  });

  it('fails with the hits of the identity step when only it names a listed person, and says both were screened', async () => {
    const r = await liveSanctionsCheck(screeningService(), 't', CLEAN, { given_names: 'Gaston', surname: 'Iyamuremye', date_of_birth: '1948-05-05' });
    expect(r.check).toMatchObject({ name: 'sanctions_screening', status: 'fail', reason: expect.stringContaining("Screened both the document's MRZ and the identity confirmed on the hosted page") });
    expect(r.hits.map((h) => h.entry_id)).toEqual(['2']);
  });

  it('passes a clean person read from the MRZ, and errs when nothing screenable was read', async () => {
    expect((await liveSanctionsCheck(screeningService(), 't', CLEAN, null)).check).toMatchObject({ status: 'pass', reason: expect.stringMatching(/^No match at threshold 0.70; screened against un-a$/) });
    expect((await liveSanctionsCheck(screeningService(), 't', undefined, null)).check).toEqual({ name: 'sanctions_screening', status: 'error', reason: 'No identity was read from the document to screen' });
    expect((await liveSanctionsCheck(screeningService(), 't', { ...CLEAN, givenNames: '', surname: 'X' }, null)).check.reason).toBe('The identity read cannot be screened: fullName must have at least 2 letters');
  });
});
