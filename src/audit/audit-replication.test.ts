import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { Database, openDatabase } from '../db/database';
import { newId } from '../ids';
import { AuditLogService } from './audit-log.service';
import { AuditReplicator } from './audit-replicator';
import { verifySegments } from './audit-segment';
import { LocalDirectoryWormStore } from './local-directory.worm-store';

/**
 * Replication to the local write-once directory, and offline verification of what it wrote, on a
 * real PostgreSQL (embedded, or DATABASE_URL) with an injected clock. Each test uses a tenant of
 * its own and checks that tenant's log directory.
 */
describe('audit replication and offline verification', () => {
  let database: Database;
  let clock = new Date('2026-03-01T10:00:00.000Z');
  const now = () => clock;
  let audit: AuditLogService;
  const key = generateKeyPairSync('ed25519').privateKey;

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-replication-')) }, 4);
    audit = new AuditLogService(database.dataSource, now);
  });
  afterAll(async () => {
    await database?.close();
  });

  const archive = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-archive-'));
  const replicator = (dir: string) => new AuditReplicator(database.dataSource, new LocalDirectoryWormStore(dir), key, audit, now);
  const logDir = (dir: string, tenant: string) => path.join(dir, `tenant.${tenant}.live`);
  const read = (dir: string) => fs.readdirSync(dir).sort().map((f) => ({ file: path.join(dir, f), body: fs.readFileSync(path.join(dir, f)) }));

  /** Three days of entries for a new tenant: 2, 3 and 1 entries. */
  async function threeDays(): Promise<string> {
    const tenant = newId('ten');
    for (const [day, n] of [['2026-03-01', 2], ['2026-03-02', 3], ['2026-03-03', 1]] as const) {
      for (let i = 0; i < n; i++) {
        await audit.append({ tenantId: tenant, livemode: true, action: 'evidence.opened', subjectId: `art_${day}_${i}`, detail: { request_id: `req_${i}` }, at: new Date(`${day}T0${i}:00:00.000Z`) });
      }
    }
    return tenant;
  }

  /** A writable copy of a log directory to tamper with (the archive itself is read-only). */
  function tamperable(dir: string): string {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-tamper-'));
    for (const f of fs.readdirSync(dir)) fs.writeFileSync(path.join(copy, f), fs.readFileSync(path.join(dir, f)));
    return copy;
  }

  it('writes one signed segment per finished day, read-only, that verifies offline; today stays in the database', async () => {
    const tenant = await threeDays();
    clock = new Date('2026-03-03T12:00:00.000Z');
    const dir = archive();
    await replicator(dir).replicate();
    const files = fs.readdirSync(logDir(dir, tenant)).sort();
    expect(files).toEqual(['2026-03-01-000000000001.ndjson', '2026-03-02-000000000003.ndjson']);
    for (const f of files) expect(fs.statSync(path.join(logDir(dir, tenant), f)).mode & 0o777).toBe(0o444);
    const result = verifySegments(read(logDir(dir, tenant)));
    expect(result).toMatchObject({ ok: true, logs: [{ log_id: `tenant:${tenant}:live`, segments: 2, entries: 5, last_seq: 5 }] });
  });

  it('writes each segment once however often the job runs, and catches up the nights it missed', async () => {
    const tenant = await threeDays();
    const dir = archive();
    clock = new Date('2026-03-02T00:30:00.000Z');
    await replicator(dir).replicate(); // the first night: 03-01 only
    expect(fs.readdirSync(logDir(dir, tenant))).toEqual(['2026-03-01-000000000001.ndjson']);
    await replicator(dir).replicate(); // the same night again
    expect(fs.readdirSync(logDir(dir, tenant))).toEqual(['2026-03-01-000000000001.ndjson']);
    clock = new Date('2026-03-05T00:30:00.000Z'); // two nights missed
    await replicator(dir).replicate();
    expect(fs.readdirSync(logDir(dir, tenant)).sort()).toEqual(['2026-03-01-000000000001.ndjson', '2026-03-02-000000000003.ndjson', '2026-03-03-000000000006.ndjson']);
    expect(verifySegments(read(logDir(dir, tenant)))).toMatchObject({ ok: true });
  });

  it('refuses to overwrite a segment: a second writer of the same key finds it exists, and different bytes stop the run', async () => {
    const dir = archive();
    const store = new LocalDirectoryWormStore(dir);
    expect(await store.put('x/1.ndjson', Buffer.from('a\n'))).toBe('written');
    expect(await store.put('x/1.ndjson', Buffer.from('b\n'))).toBe('exists');
    expect(fs.readFileSync(path.join(dir, 'x', '1.ndjson'), 'utf8')).toBe('a\n');
    await expect(store.put('../escape.ndjson', Buffer.from('x'))).rejects.toThrow(/invalid segment key/);
  });

  it('signs nothing of a log whose rows were changed behind the trigger; other logs go on', async () => {
    const tampered = await threeDays();
    const honest = await threeDays();
    // Behind the trigger's back, as only the database owner still can (replica mode no longer skips it: issue #25 finding 13).
    await database.dataSource.transaction(async (m) => {
      await m.query(`SET LOCAL session_replication_role = replica`);
      await expect(m.query(`UPDATE audit_log SET action = action WHERE log_id = $1`, [`tenant:${tampered}:live`])).rejects.toThrow(/append-only/);
    });
    await database.dataSource.transaction(async (m) => {
      await m.query(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete`);
      await m.query(`UPDATE audit_log SET detail = '{"request_id":"forged"}' WHERE log_id = $1 AND log_seq = 4`, [`tenant:${tampered}:live`]);
      await m.query(`ALTER TABLE audit_log ENABLE ALWAYS TRIGGER audit_log_no_update_delete`);
    });
    clock = new Date('2026-03-04T00:30:00.000Z');
    const dir = archive();
    const r = await replicator(dir).replicate();
    const refused = r.refused.find((x) => x.log_id === `tenant:${tampered}:live`);
    expect(refused).toMatchObject({ seq: 4 });
    expect(refused!.reason).toMatch(/hash does not match its fields/);
    // The day before the change is signed; the segment holding the change and everything after it wait.
    expect(fs.readdirSync(logDir(dir, tampered))).toEqual(['2026-03-01-000000000001.ndjson']);
    expect(fs.readdirSync(logDir(dir, honest)).sort()).toEqual(['2026-03-01-000000000001.ndjson', '2026-03-02-000000000003.ndjson', '2026-03-03-000000000006.ndjson']);
    const alarm = await database.dataSource.query(`SELECT detail FROM audit_log WHERE action = 'audit.replication_refused' AND subject_id = $1`, [`tenant:${tampered}:live`]);
    expect(alarm).toHaveLength(1);
  });

  describe('tampering is caught and named', () => {
    let dir: string;
    let tenant: string;
    beforeAll(async () => {
      tenant = await threeDays();
      clock = new Date('2026-03-04T00:30:00.000Z');
      dir = archive();
      await replicator(dir).replicate();
    });
    const second = (copy: string) => path.join(copy, '2026-03-02-000000000003.ndjson');
    const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n');

    it('one changed byte in an entry names that entry', () => {
      const copy = tamperable(logDir(dir, tenant));
      const l = lines(second(copy));
      const entryId = JSON.parse(l[1]).id;
      l[1] = l[1].replace('art_2026-03-02_1', 'art_2026-03-02_9');
      fs.writeFileSync(second(copy), l.join('\n'));
      expect(verifySegments(read(copy))).toMatchObject({ ok: false, file: second(copy), line: 2, entry_id: entryId, reason: expect.stringMatching(/hash does not match/) });
    });

    it('a dropped entry names the entry after the gap', () => {
      const copy = tamperable(logDir(dir, tenant));
      const l = lines(second(copy));
      const next = JSON.parse(l[1]).id;
      l.splice(0, 1);
      fs.writeFileSync(second(copy), l.join('\n'));
      expect(verifySegments(read(copy))).toMatchObject({ ok: false, line: 1, entry_id: next, reason: expect.stringMatching(/expected sequence 3/) });
    });

    it('two entries swapped name the first out of place', () => {
      const copy = tamperable(logDir(dir, tenant));
      const l = lines(second(copy));
      [l[0], l[1]] = [l[1], l[0]];
      fs.writeFileSync(second(copy), l.join('\n'));
      expect(verifySegments(read(copy))).toMatchObject({ ok: false, line: 1, entry_id: JSON.parse(l[0]).id, reason: expect.stringMatching(/sequence/) });
    });

    it('a changed byte in the signed head fails its signature', () => {
      const copy = tamperable(logDir(dir, tenant));
      const l = lines(second(copy));
      l[3] = l[3].replace('"day":"2026-03-02"', '"day":"2026-03-09"');
      fs.writeFileSync(second(copy), l.join('\n'));
      expect(verifySegments(read(copy))).toMatchObject({ ok: false, line: 4, reason: expect.stringMatching(/signature/) });
    });

    it('a missing segment breaks the link between its neighbours', () => {
      const copy = tamperable(logDir(dir, tenant));
      fs.unlinkSync(second(copy));
      expect(verifySegments(read(copy))).toMatchObject({ ok: false, file: path.join(copy, '2026-03-03-000000000006.ndjson'), reason: expect.stringMatching(/does not continue/) });
    });

    it('a dropped last entry is caught by the signed head, which counts the entries and holds the last hash', () => {
      const copy = tamperable(logDir(dir, tenant));
      const l = lines(second(copy));
      l.splice(2, 1);
      fs.writeFileSync(second(copy), l.join('\n'));
      expect(verifySegments(read(copy))).toMatchObject({ ok: false, file: second(copy), reason: expect.stringMatching(/counts 3 entries/) });
    });
  });
});
