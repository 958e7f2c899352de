import pino from 'pino';
import type { CurrentListVersion, SanctionsListRepository } from './sanctions-list.repository';
import type { ListSnapshot } from '../../entities/list-snapshot.document';
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
  put(id: string, s: ListSnapshot, loadedAt = new Date('2026-11-22T00:00:00Z')): void {
    this.stored.set(id, s);
    this.current = [...this.current.filter((c) => c.list !== s.list), { list: s.list, versionId: id, version: s.version, loadedAt }];
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

const make = (repo: FakeRepo, logger = pino({ level: 'silent' })) => new SanctionsScreeningService(repo as unknown as SanctionsListRepository, logger, 60_000);

/** A logger that keeps its warnings, to assert what an operator is told. */
function recordingLogger(): { logger: pino.Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg as string) });
  return { logger, warnings };
}

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

  it('tells a live check whether any list is in force, reading the database rather than a stale index', async () => {
    const repo = new FakeRepo();
    const svc = make(repo);
    expect(await svc.hasLists()).toBe(false);
    expect(await svc.loadedLists()).toEqual([]);
    repo.put('1', snapshot('un', 'un-a', 'ERIC BADEGE'));
    expect(await svc.hasLists()).toBe(true);
    expect(await svc.loadedLists()).toEqual([{ list: 'un', version: 'un-a' }]);
  });

  it("reports each list's version and age for /healthz from memory, null for a list never loaded", async () => {
    const repo = new FakeRepo();
    repo.put('1', snapshot('un', 'un-a', 'ERIC BADEGE'), new Date('2026-11-25T12:00:00Z'));
    const svc = make(repo);
    expect(svc.health().un).toBeNull(); // nothing read yet
    await svc.refresh();
    const reads = repo.pointerReads;
    const h = svc.health(Date.parse('2026-11-26T12:00:30Z'));
    expect(h.un).toEqual({ version: 'un-a', loaded_at: '2026-11-25T12:00:00.000Z', age_seconds: 86_430 });
    expect(h).toMatchObject({ ofac: null, eu: null, uk: null, au: null });
    expect(repo.pointerReads).toBe(reads);
  });

  it('renews the age when a refresh confirms the same version (no rebuild)', async () => {
    const repo = new FakeRepo();
    repo.put('1', snapshot('un', 'un-a', 'ERIC BADEGE'), new Date('2026-11-20T00:00:00Z'));
    const svc = make(repo);
    await svc.refresh();
    repo.put('1', snapshot('un', 'un-a', 'ERIC BADEGE'), new Date('2026-11-26T00:00:00Z'));
    await svc.refresh();
    expect(svc.health(Date.parse('2026-11-26T00:01:00Z')).un?.age_seconds).toBe(60);
    expect(repo.snapshotReads).toBe(1);
  });

  it('warns once when no list is loaded, and not when one is', async () => {
    const empty = recordingLogger();
    const svc = make(new FakeRepo(), empty.logger);
    await svc.refresh();
    await svc.refresh();
    expect(empty.warnings.filter((m) => m.startsWith('no sanctions list is loaded'))).toHaveLength(1);
    const loaded = recordingLogger();
    const repo = new FakeRepo();
    repo.put('1', snapshot('un', 'un-a', 'ERIC BADEGE'));
    await make(repo, loaded.logger).refresh();
    expect(loaded.warnings).toEqual([]);
  });
});
