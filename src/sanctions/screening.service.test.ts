import pino from 'pino';
import type { CurrentListVersion, SanctionsListRepository } from './sanctions-list.repository';
import type { ListSnapshot } from './sanctions.model';
import { SanctionsScreeningService } from './screening.service';

function snapshot(list: 'un' | 'eu', version: string, name: string): ListSnapshot {
  return {
    list,
    format: list === 'un' ? 'un_xml' : 'eu_fsf_xml',
    version,
    source_file: `${list}.xml`,
    loaded_at: '2026-11-22T00:00:00.000Z',
    warnings: [],
    entries: [
      { list, entry_id: `${list}-1`, reference: `${list.toUpperCase()}.1`, programme: 'P', subject_type: 'person', names: [{ full: name, strength: 'strong', kind: 'primary' }], birth_dates: [], nationalities: [], places_of_birth: [], documents: [], extra: {} },
    ],
  };
}

/** An in-memory stand-in for the two tables: pointers per list and stored snapshots by id. */
class FakeRepo {
  current: CurrentListVersion[] = [];
  stored = new Map<string, ListSnapshot>();
  snapshotReads = 0;
  pointerReads = 0;
  put(id: string, s: ListSnapshot): void {
    this.stored.set(id, s);
    this.current = [...this.current.filter((c) => c.list !== s.list), { list: s.list, versionId: id, version: s.version }];
  }
  async currentVersions(): Promise<CurrentListVersion[]> {
    this.pointerReads++;
    return this.current;
  }
  async snapshot(id: string): Promise<ListSnapshot> {
    this.snapshotReads++;
    return this.stored.get(id)!;
  }
  async tenantThreshold(): Promise<number> {
    return 0.7;
  }
}

const make = (repo: FakeRepo) => new SanctionsScreeningService(repo as unknown as SanctionsListRepository, pino({ level: 'silent' }), 60_000);

describe('SanctionsScreeningService', () => {
  it('answers "nothing screened" before any list is loaded, then screens against the switched-in version', async () => {
    const repo = new FakeRepo();
    const svc = make(repo);
    expect(await svc.screen({ fullName: 'Eric Badege' }, 0.7)).toEqual({ hits: [], lists: [], threshold: 0.7 });
    repo.put('1', snapshot('un', 'un-a', 'ERIC BADEGE'));
    const s = await svc.screenCurrent({ fullName: 'Eric Badege' }, 0.7);
    expect(s.lists).toEqual([{ list: 'un', version: 'un-a' }]);
    expect(s.hits).toEqual([expect.objectContaining({ entry_id: 'un-1', list_version: 'un-a' })]);
  });

  it('rebuilds only when the pointers change, re-reading only the snapshots that changed', async () => {
    const repo = new FakeRepo();
    repo.put('1', snapshot('un', 'un-a', 'ERIC BADEGE'));
    repo.put('2', snapshot('eu', 'eu-a', 'JOHN DOE EXAMPLE'));
    const svc = make(repo);
    await svc.refresh();
    await svc.refresh();
    expect(repo.snapshotReads).toBe(2);
    repo.put('3', snapshot('un', 'un-b', 'GASTON IYAMUREMYE'));
    await svc.refresh();
    expect(repo.snapshotReads).toBe(3);
    expect(svc.listsInUse).toEqual([
      { list: 'eu', version: 'eu-a' },
      { list: 'un', version: 'un-b' },
    ]);
    expect((await svc.screen({ fullName: 'Eric Badege' }, 0.7)).hits).toEqual([]);
    expect((await svc.screen({ fullName: 'Gaston Iyamuremye' }, 0.7)).hits[0]).toMatchObject({ list_version: 'un-b' });
  });

  it('shares one catch-up between concurrent callers', async () => {
    const repo = new FakeRepo();
    repo.put('1', snapshot('un', 'un-a', 'ERIC BADEGE'));
    const svc = make(repo);
    await Promise.all([svc.refresh(), svc.refresh(), svc.screenCurrent({ fullName: 'Eric Badege' }, 0.7)]);
    // screenCurrent joins nothing started before it: it reads the pointers once more itself.
    expect(repo.pointerReads).toBe(2);
    expect(repo.snapshotReads).toBe(1);
  });
});
