import { AuditGroupCommit } from './audit-group-commit';
import type { AppendedEntry, AuditEntryInput } from './audit-entry';

/** A stand-in for AuditLogService.appendMany that records each call and settles it when told. */
function fakeLog() {
  const calls: { entries: AuditEntryInput[]; settle(err?: Error): void }[] = [];
  const appendMany = (entries: AuditEntryInput[]) =>
    new Promise<AppendedEntry[]>((resolve, reject) => {
      calls.push({
        entries,
        settle: (err) => (err ? reject(err) : resolve(entries.map((e, i) => ({ subjectId: e.subjectId, logSeq: i + 1 }) as unknown as AppendedEntry))),
      });
    });
  return { calls, appendMany };
}

const entry = (subjectId: string, tenantId = 'ten_a'): AuditEntryInput => ({ tenantId, livemode: true, action: 'evidence.opened', subjectId });
const turn = () => new Promise((r) => setImmediate(r));

describe('AuditGroupCommit', () => {
  it('sends the appends of one turn as one batch, and those that arrive while it is in flight as the next, in arrival order', async () => {
    const log = fakeLog();
    const group = new AuditGroupCommit(log.appendMany);
    const first = [group.append(entry('art_1')), group.append(entry('art_2'))];
    await turn();
    const later = [group.append(entry('art_3')), group.append(entry('art_4')), group.append(entry('art_5'))];
    await turn();
    expect(log.calls.map((c) => c.entries.map((e) => e.subjectId))).toEqual([['art_1', 'art_2']]);
    log.calls[0].settle();
    expect((await Promise.all(first)).map((a) => a.subjectId)).toEqual(['art_1', 'art_2']);
    await turn();
    expect(log.calls.map((c) => c.entries.map((e) => e.subjectId))).toEqual([['art_1', 'art_2'], ['art_3', 'art_4', 'art_5']]);
    log.calls[1].settle();
    expect((await Promise.all(later)).map((a) => a.subjectId)).toEqual(['art_3', 'art_4', 'art_5']);
  });

  it('keeps each log to itself: another tenant does not wait for a batch in flight', async () => {
    const log = fakeLog();
    const group = new AuditGroupCommit(log.appendMany);
    void group.append(entry('art_1', 'ten_a'));
    await turn();
    void group.append(entry('art_2', 'ten_a'));
    void group.append(entry('art_3', 'ten_b'));
    await turn();
    expect(log.calls.map((c) => c.entries.map((e) => e.subjectId))).toEqual([['art_1'], ['art_3']]);
    for (const c of log.calls) c.settle();
  });

  it('rejects every caller of a batch that failed, so none of them acts as if audited, and goes on with the next', async () => {
    const log = fakeLog();
    const group = new AuditGroupCommit(log.appendMany);
    const failed = [group.append(entry('art_1')), group.append(entry('art_2'))];
    await turn();
    const next = group.append(entry('art_3'));
    log.calls[0].settle(new Error('connection lost'));
    for (const f of failed) await expect(f).rejects.toThrow('connection lost');
    await turn();
    log.calls[1].settle();
    expect((await next).subjectId).toBe('art_3');
  });

  it('refuses an entry with personal data alone, without failing the others of its turn', async () => {
    const log = fakeLog();
    const group = new AuditGroupCommit(log.appendMany);
    const bad = group.append({ ...entry('art_1'), detail: { email: 'a@example.com' } });
    const good = group.append(entry('art_2'));
    await expect(bad).rejects.toThrow(/personal data/);
    await turn();
    log.calls[0].settle();
    expect((await good).subjectId).toBe('art_2');
    expect(log.calls[0].entries.map((e) => e.subjectId)).toEqual(['art_2']);
  });
});
