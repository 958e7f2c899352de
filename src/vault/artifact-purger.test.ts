import { ALL_SCOPES, TenantKeyActor } from '../auth/actor';
import { entryHash, GENESIS_HASH } from '../../entities/audit-canonical';
import { AuditLogService } from '../audit/audit-log.service';
import { openOwnDatabase } from '../../test/helpers/own-database';
import { NO_END_USERS, quietEffects } from '../../test/helpers/session-fakes';
import { Database } from '../db/database';
import { newId } from '../ids';
import { SessionService } from '../sessions/session.service';
import { TenantService } from '../tenants/tenant.service';
import { WebhookDispatcher } from '../webhooks/webhook.dispatcher';
import { ArtifactClass } from './artifact-classes';
import { ArtifactPurger } from './artifact-purger';
import { EvidenceVault } from './evidence-vault';
import { PostgresArtifactStore } from './postgres-artifact-store';
import { VaultKeys } from './vault-keys';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]);

/**
 * Purging on a real PostgreSQL (embedded, or a database of its own on DATABASE_URL's server: the
 * expiry sweep takes every due artifact, and on the shared database a test server's retention run
 * could take this test's first); the queue is a recorder of the jobs the dispatcher would send.
 */
describe('ArtifactPurger', () => {
  let database: Database;
  let vault: EvidenceVault;
  let purger: ArtifactPurger;
  let sessions: SessionService;
  let actor: TenantKeyActor;
  const sent: unknown[] = [];
  const now = new Date('2026-03-01T10:00:00.000Z');

  beforeAll(async () => {
    database = await openOwnDatabase('purger');
    const db = database.dataSource;
    const jobs = { send: async (_q: string, d: unknown) => void sent.push(d), sendMany: async (_q: string, items: unknown[]) => void sent.push(...items) };
    const store = new PostgresArtifactStore(db, database.sql);
    vault = new EvidenceVault(store, await VaultKeys.load(db, undefined), { now: () => now });
    purger = new ArtifactPurger(db, store, new AuditLogService(db, () => now), new WebhookDispatcher(jobs, { expireInSeconds: 15, now: () => now, db }), { now: () => now });
    sessions = new SessionService(db, database.sql, { sendJobs: async () => undefined, insertStatement: async () => null }, NO_END_USERS, quietEffects());
    const tenant = await new TenantService(db).create('purger');
    actor = { kind: 'tenant_key', tenantId: tenant.tenantId, keyId: tenant.liveKey.id, livemode: true, scopes: ALL_SCOPES };
  });
  afterAll(async () => {
    await database?.close();
  });

  async function sessionWith(classes: ArtifactClass[]): Promise<{ sessionId: string; ids: string[] }> {
    const { session } = await sessions.create(actor, { flowId: 'default', tier: 'T2' });
    await database.dataSource.query(`UPDATE sessions SET status = 'processing' WHERE id = $1`, [session.id]);
    for (const cls of classes) await vault.putDerived({ session, class: cls, bytes: PNG, contentType: 'image/png' });
    return { sessionId: session.id, ids: (await vault.list(session.id)).map((a) => a.id) };
  }

  async function endpoint(events: string[]): Promise<string> {
    const id = newId('whk');
    await database.dataSource.query(
      `INSERT INTO webhook_endpoints (id, tenant_id, livemode, url, events, secret_ciphertext, status, created_at, updated_at) VALUES ($1, $2, true, 'https://r.example/h', $3, 'x', 'enabled', now(), now())`,
      [id, actor.tenantId, events],
    );
    return id;
  }

  it('deletes the bytes, keeps the rows with purged_at and no personal data, and audits per session', async () => {
    const { sessionId, ids } = await sessionWith(['id_document_image', 'mrz_text']);
    await database.dataSource.query(`UPDATE artifacts SET details = '{"side":"front"}', user_id = 'usr_x' WHERE session_id = $1`, [sessionId]);
    const outcome = await purger.purgeSessions([sessionId], 'operator');
    expect(outcome).toMatchObject({ purged: 2, byClass: { id_document_image: 1, mrz_text: 1 }, eventIds: [] });
    const rows: { purged_at: Date; details: unknown; user_id: string | null }[] = await database.dataSource.query(`SELECT purged_at, details, user_id FROM artifacts WHERE session_id = $1`, [sessionId]);
    expect(rows).toEqual([
      { purged_at: now, details: null, user_id: null },
      { purged_at: now, details: null, user_id: null },
    ]);
    const blobs = await database.dataSource.query(`SELECT 1 FROM artifact_blobs WHERE artifact_id = ANY($1::text[])`, [ids]);
    expect(blobs).toEqual([]);
    expect((await vault.open((await vault.find(ids[0]))!)).bytes).toBeNull();
    const audit: { action: string; detail: Record<string, unknown> }[] = await database.dataSource.query(`SELECT action, detail FROM audit_log WHERE subject_id = $1 ORDER BY log_seq`, [sessionId]);
    expect(audit).toEqual([{ action: 'artifacts.purged', detail: { reason: 'operator', classes: { id_document_image: 1, mrz_text: 1 }, artifact_ids: expect.arrayContaining(ids) } }]);
    expect(await purger.purge(ids, 'operator')).toMatchObject({ purged: 0 }); // a second purge does nothing
  });

  it('fires biometric.purged per session and class to every endpoint of the tenant, whatever it registered, and logs it in the tenant and service logs', async () => {
    const endpoints = [await endpoint(['verification.completed']), await endpoint(['verification.failed'])];
    const { sessionId } = await sessionWith(['selfie_image', 'liveness_template', 'liveness_template', 'decision_signals']);
    sent.length = 0;
    const outcome = await purger.purgeSessions([sessionId], 'retention_expired');
    expect(outcome.purged).toBe(4);
    expect(outcome.eventIds).toHaveLength(2);
    const events: { type: string; payload: Record<string, unknown> }[] = await database.dataSource.query(`SELECT type, payload FROM outbox_events WHERE event_id = ANY($1::text[]) ORDER BY payload->>'artifact'`, [outcome.eventIds]);
    expect(events).toEqual([
      { type: 'biometric.purged', payload: { verification_id: sessionId, artifact: 'liveness_template', purged_at: now.toISOString() } },
      { type: 'biometric.purged', payload: { verification_id: sessionId, artifact: 'selfie_image', purged_at: now.toISOString() } },
    ]);
    const deliveries: { endpoint_id: string }[] = await database.dataSource.query(`SELECT endpoint_id FROM webhook_deliveries WHERE event_id = ANY($1::text[])`, [outcome.eventIds]);
    expect(deliveries.map((d) => d.endpoint_id).sort()).toEqual([...endpoints, ...endpoints].sort());
    expect(sent).toHaveLength(4);
    const logs: { log_id: string }[] = await database.dataSource.query(`SELECT log_id FROM audit_log WHERE subject_id = $1 AND action = 'biometric.purged'`, [sessionId]);
    expect(logs.map((l) => l.log_id).sort()).toEqual(['service', 'service', `tenant:${actor.tenantId}:live`, `tenant:${actor.tenantId}:live`]);
  });

  it('purges many sessions in one go with one biometric.purged per session and class, each audited in both logs, the chains linked', async () => {
    const many = await Promise.all(Array.from({ length: 6 }, () => sessionWith(['selfie_image', 'liveness_template'])));
    const sessionIds = many.map((m) => m.sessionId);
    const outcome = await purger.purgeSessions(sessionIds, 'user_deleted');
    expect(outcome.purged).toBe(12);
    expect(outcome.bySession).toEqual(Object.fromEntries(sessionIds.map((id) => [id, 2])));
    expect(new Set(outcome.eventIds).size).toBe(12);
    const events: { event_id: string; payload: { verification_id: string; artifact: string } }[] = await database.dataSource.query(
      `SELECT event_id, payload FROM outbox_events WHERE event_id = ANY($1::text[])`,
      [outcome.eventIds],
    );
    expect(events.map((e) => `${e.payload.verification_id}:${e.payload.artifact}`).sort()).toEqual(sessionIds.flatMap((id) => [`${id}:liveness_template`, `${id}:selfie_image`]).sort());
    // Each log holds one biometric.purged per event, naming that event and its verification.
    const eventOf = new Map(events.map((e) => [e.event_id, e.payload]));
    for (const logId of ['service', `tenant:${actor.tenantId}:live`]) {
      const entries: { subject_id: string; detail: { event_id: string; artifact: string; count: number } }[] = await database.dataSource.query(
        `SELECT subject_id, detail FROM audit_log WHERE log_id = $1 AND action = 'biometric.purged' AND subject_id = ANY($2::text[])`,
        [logId, sessionIds],
      );
      expect(entries.map((e) => e.detail.event_id).sort()).toEqual([...outcome.eventIds].sort());
      for (const e of entries) expect(eventOf.get(e.detail.event_id)).toEqual(expect.objectContaining({ verification_id: e.subject_id, artifact: e.detail.artifact }));
      const chain: { public_id: string; log_id: string; log_seq: string; prev_hash: string; hash: string; tenant_id: string | null; livemode: boolean | null; action: string; subject_id: string; detail: Record<string, unknown>; created_at: Date }[] =
        await database.dataSource.query(`SELECT public_id, log_id, log_seq, prev_hash, hash, tenant_id, livemode, action, subject_id, detail, created_at FROM audit_log WHERE log_id = $1 ORDER BY log_seq`, [logId]);
      chain.forEach((r, i) => {
        expect(Number(r.log_seq)).toBe(i + 1);
        expect(r.prev_hash).toBe(i === 0 ? GENESIS_HASH : chain[i - 1].hash);
        const fields = { logId: r.log_id, logSeq: Number(r.log_seq), prevHash: r.prev_hash, id: r.public_id, tenantId: r.tenant_id, livemode: r.livemode, action: r.action, subjectId: r.subject_id, detail: r.detail, createdAt: new Date(r.created_at).toISOString() };
        expect(entryHash(fields)).toBe(r.hash);
      });
    }
  });

  it('purges only what is past its retain_until', async () => {
    const { sessionId } = await sessionWith(['selfie_image', 'mrz_text']);
    // Both were stored in the same millisecond: pick them by class, not by list order.
    const stored = await vault.list(sessionId);
    const ids = ['selfie_image', 'mrz_text'].map((cls) => stored.find((a) => a.class === cls)!.id);
    await database.dataSource.query(`UPDATE artifacts SET retain_until = $2 WHERE id = $1`, [ids[0], new Date(now.getTime() - 1000)]);
    const outcome = await purger.purgeExpired();
    expect(outcome.byClass).toEqual({ selfie_image: 1 });
    const left: { id: string }[] = await database.dataSource.query(`SELECT id FROM artifacts WHERE session_id = $1 AND purged_at IS NULL`, [sessionId]);
    expect(left.map((r) => r.id)).toEqual([ids[1]]);
  });
});
