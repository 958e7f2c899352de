import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ALL_SCOPES, TenantKeyActor } from '../auth/actor';
import { openOwnDatabase } from '../../test/helpers/own-database';
import { NO_END_USERS, quietEffects } from '../../test/helpers/session-fakes';
import { Database } from '../db/database';
import { SessionService } from '../sessions/session.service';
import { TenantService } from '../tenants/tenant.service';
import { BlobReaper } from './blob-reaper';
import { EvidenceVault } from './evidence-vault';
import { FsBlobStore } from './fs-blob-store';
import { PostgresArtifactStore } from './postgres-artifact-store';
import { VaultKeys } from './vault-keys';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]);
const HOUR = 3_600_000;

/** The orphan sweep on a real database and a real directory: what a crash between blob and row leaves is deleted, nothing a row names is. */
describe('BlobReaper', () => {
  let database: Database;
  let blobs: FsBlobStore;
  let tmpDir: string;
  let vault: EvidenceVault;
  let reaper: BlobReaper;
  let store: PostgresArtifactStore;
  let actor: TenantKeyActor;
  let sessions: SessionService;

  beforeAll(async () => {
    database = await openOwnDatabase('reaper');
    const db = database.dataSource;
    store = new PostgresArtifactStore(db, database.sql);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-reaper-'));
    blobs = new FsBlobStore(dir);
    tmpDir = path.join(dir, 'tmp');
    vault = new EvidenceVault(store, await VaultKeys.load(db, undefined), { blobs });
    reaper = new BlobReaper(store, blobs, null);
    sessions = new SessionService(db, database.sql, { sendJobs: async () => undefined, insertStatement: async () => null }, NO_END_USERS, quietEffects());
    const tenant = await new TenantService(db).create('reaper');
    actor = { kind: 'tenant_key', tenantId: tenant.tenantId, keyId: tenant.liveKey.id, livemode: true, scopes: ALL_SCOPES };
  });
  afterAll(async () => {
    await database?.close();
  });

  const age = (file: string, ms: number) => {
    const at = new Date(Date.now() - ms);
    fs.utimesSync(file, at, at);
  };

  it('deletes an old blob no row names and a crash-leftover temporary file, and keeps a referenced blob and a young orphan', async () => {
    const { session } = await sessions.create(actor, { flowId: 'default', tier: 'T2' });
    await database.dataSource.query(`UPDATE sessions SET status = 'processing' WHERE id = $1`, [session.id]);
    await vault.putDerived({ session, class: 'face_match_template', bytes: PNG, contentType: 'image/png' });
    const [referenced] = await vault.list(session.id);
    expect(referenced.blobKey).toMatch(/^[0-9a-f]{64}$/);
    // A blob whose row never committed (the process died in between), and one still being inserted.
    const crashed = await blobs.put('art_crashed', Readable.from([Buffer.from('ciphertext of a row that never came')]));
    const young = await blobs.put('art_young', Readable.from([Buffer.from('ciphertext whose row is on its way')]));
    fs.writeFileSync(path.join(tmpDir, 'ab'.repeat(16)), 'half a blob');
    age(blobs.pathOf(referenced.blobKey!), 2 * HOUR);
    age(blobs.pathOf(crashed.key), 2 * HOUR);
    age(path.join(tmpDir, 'ab'.repeat(16)), 2 * HOUR);

    expect(await reaper.sweep()).toBe(2);
    expect(fs.existsSync(blobs.pathOf(crashed.key))).toBe(false);
    expect(fs.readdirSync(tmpDir)).toEqual([]);
    expect(fs.existsSync(blobs.pathOf(referenced.blobKey!))).toBe(true);
    expect(fs.existsSync(blobs.pathOf(young.key))).toBe(true);
    expect((await vault.open(referenced)).bytes).toEqual(PNG);
  });

  it('deletes after a purge only the blobs no row names any more', async () => {
    const { session } = await sessions.create(actor, { flowId: 'default', tier: 'T2' });
    await database.dataSource.query(`UPDATE sessions SET status = 'processing' WHERE id = $1`, [session.id]);
    await vault.putDerived({ session, class: 'face_match_template', bytes: PNG, contentType: 'image/png' });
    await vault.putDerived({ session, class: 'mrz_text', bytes: Buffer.from('P<UTO'), contentType: 'text/plain' });
    const [a, b] = await vault.list(session.id);
    // A purge that rolled back leaves its row naming the blob: asking to delete it changes nothing.
    expect(await reaper.deleteUnreferenced([a.blobKey!, b.blobKey!])).toBe(0);
    const purged = await database.dataSource.transaction((m) => store.purgeMany([a.id], new Date(), m));
    expect(purged.map((p) => p.blobKey)).toEqual([a.blobKey]);
    expect(await reaper.deleteUnreferenced([a.blobKey!, b.blobKey!])).toBe(1);
    expect(fs.existsSync(blobs.pathOf(a.blobKey!))).toBe(false);
    expect(fs.existsSync(blobs.pathOf(b.blobKey!))).toBe(true);
  });
});
