import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, openDatabase } from '../db/database';
import { newId } from '../ids';
import { entryHash, GENESIS_HASH } from '../../entities/audit-canonical';
import { AuditLogService } from './audit-log.service';
import { TenantService } from '../tenants/tenant.service';

type Row = { public_id: string; log_id: string; log_seq: string; prev_hash: string; hash: string; tenant_id: string | null; livemode: boolean | null; action: string; subject_id: string; detail: Record<string, unknown>; created_at: Date };

/** The chained audit log on a real PostgreSQL (embedded, or DATABASE_URL). */
describe('AuditLogService', () => {
  let database: Database;
  let audit: AuditLogService;
  const tenant = newId('ten');

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-audit-')) }, 4);
    audit = new AuditLogService(database.dataSource);
  });
  afterAll(async () => {
    await database?.close();
  });

  const rowsOf = async (logId: string): Promise<Row[]> =>
    database.dataSource.query(`SELECT public_id, log_id, log_seq, prev_hash, hash, tenant_id, livemode, action, subject_id, detail, created_at FROM audit_log WHERE log_id = $1 ORDER BY log_seq`, [logId]);

  const recompute = (r: Row) =>
    entryHash({ logId: r.log_id, logSeq: Number(r.log_seq), prevHash: r.prev_hash, id: r.public_id, tenantId: r.tenant_id, livemode: r.livemode, action: r.action, subjectId: r.subject_id, detail: r.detail, createdAt: new Date(r.created_at).toISOString() });

  it('chains each log on its own: positions from 1, each entry linked to the previous hash, hashes recomputable from the stored row', async () => {
    await audit.append({ tenantId: tenant, livemode: false, action: 'key.created', subjectId: 'key_1', detail: { scopes: ['a', 'b'], nested: { z: 1, a: true } } });
    await audit.append({ tenantId: tenant, livemode: true, action: 'key.created', subjectId: 'key_2' });
    await audit.append({ tenantId: tenant, livemode: false, action: 'key.revoked', subjectId: 'key_1' });
    const test = await rowsOf(`tenant:${tenant}:test`);
    const live = await rowsOf(`tenant:${tenant}:live`);
    expect(test.map((r) => Number(r.log_seq))).toEqual([1, 2]);
    expect(live.map((r) => Number(r.log_seq))).toEqual([1]);
    expect(test[0].prev_hash).toBe(GENESIS_HASH);
    expect(test[1].prev_hash).toBe(test[0].hash);
    for (const r of [...test, ...live]) expect(recompute(r)).toBe(r.hash);
  });

  it('keeps one gapless chain when many appenders write the same log at once', async () => {
    const t = newId('ten');
    await Promise.all(Array.from({ length: 40 }, (_, i) => audit.append({ tenantId: t, livemode: true, action: 'evidence.opened', subjectId: `art_${i}` })));
    const rows = await rowsOf(`tenant:${t}:live`);
    expect(rows.map((r) => Number(r.log_seq))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (let i = 1; i < rows.length; i++) expect(rows[i].prev_hash).toBe(rows[i - 1].hash);
  });

  it('keeps one gapless, recomputable chain when concurrent appends go through a group commit', async () => {
    const t = newId('ten');
    const appended = await Promise.all(Array.from({ length: 40 }, (_, i) => audit.appendGrouped({ tenantId: t, livemode: true, action: 'evidence.opened', subjectId: `art_${i}` })));
    const rows = await rowsOf(`tenant:${t}:live`);
    expect(rows.map((r) => Number(r.log_seq))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(rows[0].prev_hash).toBe(GENESIS_HASH);
    for (let i = 1; i < rows.length; i++) expect(rows[i].prev_hash).toBe(rows[i - 1].hash);
    for (const r of rows) expect(recompute(r)).toBe(r.hash);
    // Each caller is answered with its own entry.
    expect(appended.map((a) => a.subjectId)).toEqual(Array.from({ length: 40 }, (_, i) => `art_${i}`));
  });

  it('refuses an UPDATE, a DELETE and a TRUNCATE of audit entries, whoever runs them', async () => {
    await audit.append({ tenantId: null, livemode: null, action: 'retention.purge_run', subjectId: 'run_1', detail: { purged: 0 } });
    await expect(database.dataSource.query(`UPDATE audit_log SET action = 'x' WHERE log_id = 'service'`)).rejects.toThrow(/append-only/);
    await expect(database.dataSource.query(`DELETE FROM audit_log WHERE log_id = 'service'`)).rejects.toThrow(/append-only/);
    await expect(database.dataSource.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);
    expect((await rowsOf('service')).length).toBeGreaterThan(0);
  });

  it('refuses personal data in an entry, so an erasure never has to rewrite the chain', async () => {
    await expect(audit.append({ tenantId: tenant, livemode: true, action: 'x', subjectId: 's', detail: { email: 'a@example.com' } })).rejects.toThrow(/personal data/);
    await expect(audit.append({ tenantId: tenant, livemode: true, action: 'x', subjectId: 's', detail: { note: 'y'.repeat(600) } })).rejects.toThrow(/free text/);
  });

  it('writes nothing when the caller\'s transaction rolls back', async () => {
    const t = newId('ten');
    await expect(
      database.dataSource.transaction(async (m) => {
        await audit.append({ tenantId: t, livemode: true, action: 'key.created', subjectId: 'key_x' }, m);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await rowsOf(`tenant:${t}:live`)).toEqual([]);
    await audit.append({ tenantId: t, livemode: true, action: 'key.created', subjectId: 'key_y' });
    expect((await rowsOf(`tenant:${t}:live`)).map((r) => Number(r.log_seq))).toEqual([1]);
  });

  it('records key creation and revocation in the tenant log of the key\'s mode, without the key', async () => {
    const tenants = new TenantService(database.dataSource, audit);
    const t = await tenants.create('audited');
    await tenants.revokeKey(t.testKey.id, { tenantId: t.tenantId, livemode: false });
    const test = await rowsOf(`tenant:${t.tenantId}:test`);
    expect(test.map((r) => [r.action, r.subject_id])).toEqual([
      ['api_key.created', t.testKey.id],
      ['api_key.revoked', t.testKey.id],
    ]);
    expect((await rowsOf(`tenant:${t.tenantId}:live`)).map((r) => r.action)).toEqual(['api_key.created']);
    expect(JSON.stringify(test)).not.toContain(t.testKey.key);
  });
});
