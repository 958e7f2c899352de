import { ALL_SCOPES, TenantKeyActor } from '../auth/actor';
import { AuditLogService } from '../audit/audit-log.service';
import { openOwnDatabase } from '../../test/helpers/own-database';
import { NO_END_USERS, quietEffects } from '../../test/helpers/session-fakes';
import { Database } from '../db/database';
import { newId } from '../ids';
import { SessionService } from '../sessions/session.service';
import { testModeResult } from '../sessions/test-mode-outcome';
import { TenantService } from '../tenants/tenant.service';
import { WebhookDispatcher } from '../webhooks/webhook.dispatcher';
import { ArtifactClass } from '../vault/artifact-classes';
import { ArtifactPurger } from '../vault/artifact-purger';
import { EvidenceAccessService } from '../vault/evidence-access.service';
import { EVIDENCE_LINK, SignedLinks } from '../links/signed-links';
import { EvidenceVault } from '../vault/evidence-vault';
import { PostgresArtifactStore } from '../vault/postgres-artifact-store';
import { VaultKeys } from '../vault/vault-keys';
import { addDays } from '../data-rights/business-days';
import { RetentionReclassifier } from './retention-reclassifier';
import { RetentionRunService } from './retention-run.service';
import { RetentionService } from './retention.service';

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]);
const DAY = 86_400_000;

/**
 * Retention with an injected clock on a real PostgreSQL of its own (embedded, or a fresh database on
 * DATABASE_URL's server: the sweeps take every due row, and test servers beside it sweep too): every
 * service shares one clock the test moves. The job queue is a recorder (the deliveries' rows are
 * real); the 410 of a purged evidence link is the `gone` of EvidenceAccessService, which the HTTP
 * route maps (test/e2e/hosted-api.test.ts covers that mapping).
 */
describe('retention with an injected clock', () => {
  let database: Database;
  let clock = new Date('2026-05-01T08:00:00.000Z');
  const now = () => clock;
  let vault: EvidenceVault;
  let retention: RetentionService;
  let runs: RetentionRunService;
  let sessions: SessionService;
  let evidence: EvidenceAccessService;
  let links: SignedLinks;
  let actor: TenantKeyActor;

  beforeAll(async () => {
    database = await openOwnDatabase('retention');
    const db = database.dataSource;
    const audit = new AuditLogService(db, now);
    const jobs = { send: async () => undefined, sendMany: async () => undefined };
    const dispatcher = new WebhookDispatcher(jobs, { expireInSeconds: 15, now, db });
    const store = new PostgresArtifactStore(db, database.sql);
    retention = new RetentionService(db, audit, now);
    vault = new EvidenceVault(store, await VaultKeys.load(db, undefined), { now });
    const purger = new ArtifactPurger(db, store, audit, dispatcher, { now });
    sessions = new SessionService(db, database.sql, { sendJobs: async () => undefined, insertStatement: async () => null }, NO_END_USERS, quietEffects(dispatcher.onOutbox, purger.onOutbox), now);
    runs = new RetentionRunService(db, new RetentionReclassifier(db), purger, audit, now);
    links = SignedLinks.withKey(EVIDENCE_LINK, 'https://verify.example', Buffer.from('k'.repeat(48)), now);
    evidence = new EvidenceAccessService(audit, vault, links, async () => null, now);
    const tenant = await new TenantService(db).create('retention');
    actor = { kind: 'tenant_key', tenantId: tenant.tenantId, keyId: tenant.liveKey.id, livemode: true, scopes: ALL_SCOPES };
    await db.query(
      `INSERT INTO webhook_endpoints (id, tenant_id, livemode, url, events, secret_ciphertext, status, created_at, updated_at) VALUES ($1, $2, true, 'https://r.example/h', '{verification.completed}', 'x', 'enabled', now(), now())`,
      [newId('whk'), actor.tenantId],
    );
  });
  afterAll(async () => {
    await database?.close();
  });

  const q = <T>(sql: string, params: unknown[] = []): Promise<T[]> => database.dataSource.query(sql, params);

  /** A session in processing with one artifact per class given, stored at the clock's time. */
  async function sessionWith(classes: ArtifactClass[]): Promise<{ id: string; artifacts: Record<string, string> }> {
    const { session } = await sessions.create(actor, { flowId: 'default', tier: 'T2' });
    await q(`UPDATE sessions SET status = 'processing' WHERE id = $1`, [session.id]);
    for (const cls of classes) await vault.putDerived({ session, class: cls, bytes: PNG, contentType: 'image/png' });
    const rows = await q<{ id: string; class: string }>(`SELECT id, class FROM artifacts WHERE session_id = $1`, [session.id]);
    return { id: session.id, artifacts: Object.fromEntries(rows.map((r) => [r.class, r.id])) };
  }

  const complete = (id: string) => sessions.advance(id, 'success', () => ({ result: testModeResult('T2', 'approved').result }));
  const retainUntil = async (artifactId: string): Promise<Date> => new Date((await q<{ retain_until: Date }>(`SELECT retain_until FROM artifacts WHERE id = $1`, [artifactId]))[0].retain_until);

  it('shortens, at the nightly pass, exactly the stored artifacts of open sessions; new artifacts take the tighter policy at once; completed ones keep their dates', async () => {
    clock = new Date('2026-05-01T08:00:00.000Z');
    const open = await sessionWith(['selfie_image', 'id_document_image']);
    const done = await sessionWith(['selfie_image']);
    await complete(done.id);
    const before = { open: await retainUntil(open.artifacts.selfie_image), done: await retainUntil(done.artifacts.selfie_image), doc: await retainUntil(open.artifacts.id_document_image) };
    expect(before.open).toEqual(addDays(clock, 30));

    clock = new Date('2026-05-02T08:00:00.000Z');
    await retention.update(actor, actor.tenantId, { selfie_image_days: 3 });
    const after = await sessionWith(['selfie_image']);
    expect(await retainUntil(after.artifacts.selfie_image)).toEqual(addDays(clock, 3)); // instant for new artifacts
    expect(await retainUntil(open.artifacts.selfie_image)).toEqual(before.open); // stored ones wait for the pass

    clock = new Date('2026-05-03T03:15:00.000Z');
    const report = await runs.nightly();
    expect(report.reclassified).toEqual({ selfie_image: 1 });
    expect(await retainUntil(open.artifacts.selfie_image)).toEqual(new Date(new Date('2026-05-01T08:00:00.000Z').getTime() + 3 * DAY));
    expect(await retainUntil(done.artifacts.selfie_image)).toEqual(before.done); // rule 3
    expect(await retainUntil(open.artifacts.id_document_image)).toEqual(before.doc); // another class, untouched
    expect(await retainUntil(after.artifacts.selfie_image)).toEqual(addDays(new Date('2026-05-02T08:00:00.000Z'), 3));

    const page = await runs.runs(actor, 5);
    expect(page.runs[0]).toMatchObject({ id: report.id, kind: 'nightly', reclassified: { selfie_image: 1 } });
  });

  it('changes no stored artifact when the policy is loosened', async () => {
    clock = new Date('2026-06-01T08:00:00.000Z');
    await retention.update(actor, actor.tenantId, { selfie_image_days: 3, selfie_video_days: 2 });
    const s = await sessionWith(['selfie_image', 'selfie_video']);
    const before = [await retainUntil(s.artifacts.selfie_image), await retainUntil(s.artifacts.selfie_video)];
    await retention.update(actor, actor.tenantId, { selfie_image_days: 90, selfie_video_days: 30 });
    const report = await runs.nightly();
    expect([await retainUntil(s.artifacts.selfie_image), await retainUntil(s.artifacts.selfie_video)]).toEqual(before);
    expect(report.reclassified).toEqual({});
  });

  it('purges expired artifacts at the hourly run: bytes gone, row kept, evidence link gone, biometric.purged delivered to the endpoint that did not subscribe to it', async () => {
    clock = new Date('2026-07-01T08:00:00.000Z');
    await runs.hourly(); // what earlier tests left is due by now
    await retention.update(actor, actor.tenantId, { selfie_image_days: 1, id_document_years: 7 });
    const s = await sessionWith(['selfie_image', 'id_document_image']);
    const url = new URL(links.url(s.artifacts.selfie_image));
    clock = new Date('2026-07-02T08:00:00.000Z'); // exactly one day later: due
    const report = await runs.hourly();
    expect(report.purged).toEqual({ selfie_image: 1 });
    const rows = await q<{ class: string; purged_at: Date | null }>(`SELECT class, purged_at FROM artifacts WHERE session_id = $1 ORDER BY class`, [s.id]);
    expect(rows).toEqual([
      { class: 'id_document_image', purged_at: null },
      { class: 'selfie_image', purged_at: clock },
    ]);
    expect(await q(`SELECT 1 FROM artifact_blobs WHERE artifact_id = $1`, [s.artifacts.selfie_image])).toEqual([]);
    const fresh = new URL(links.url(s.artifacts.selfie_image));
    expect(await evidence.open(s.artifacts.selfie_image, fresh.searchParams.get('expires')!, fresh.searchParams.get('sig')!, 'req_test')).toBe('gone');
    expect(url.pathname).toContain(s.artifacts.selfie_image);
    const events = await q<{ type: string; payload: Record<string, unknown>; deliveries: string }>(
      `SELECT o.type, o.payload, (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id = o.event_id) AS deliveries FROM outbox_events o WHERE o.tenant_id = $1 AND o.type = 'biometric.purged' AND o.payload->>'verification_id' = $2`,
      [actor.tenantId, s.id],
    );
    expect(events).toEqual([{ type: 'biometric.purged', payload: { verification_id: s.id, artifact: 'selfie_image', purged_at: clock.toISOString() }, deliveries: '1' }]);
    const runEntry = await q<{ detail: Record<string, unknown> }>(`SELECT detail FROM audit_log WHERE log_id = 'service' AND subject_id = $1`, [report.id]);
    expect(runEntry[0].detail).toMatchObject({ kind: 'hourly', purged: { selfie_image: 1 } });
  });

  it('purges a 0-day class when the session completes, in the same transaction, and not before', async () => {
    clock = new Date('2026-08-01T08:00:00.000Z');
    await retention.update(actor, actor.tenantId, { biometric_template_days: 0, selfie_image_days: 30 });
    const s = await sessionWith(['liveness_template', 'face_match_template', 'selfie_image']);
    await runs.hourly();
    expect(await q(`SELECT id FROM artifacts WHERE session_id = $1 AND purged_at IS NOT NULL`, [s.id])).toEqual([]);
    await complete(s.id);
    const purged = await q<{ class: string }>(`SELECT class FROM artifacts WHERE session_id = $1 AND purged_at IS NOT NULL ORDER BY class`, [s.id]);
    expect(purged.map((r) => r.class)).toEqual(['face_match_template', 'liveness_template']);
  });

  it('marks stored artifacts of an open session for purge at completion when tightened to 0 days, and purges those of a session that already ended', async () => {
    clock = new Date('2026-09-01T08:00:00.000Z');
    await runs.hourly(); // what earlier tests left is due by now
    await retention.update(actor, actor.tenantId, { selfie_video_days: 7 });
    const open = await sessionWith(['selfie_video']);
    const ended = await sessionWith(['selfie_video']);
    await q(`UPDATE sessions SET status = 'expired' WHERE id = $1`, [ended.id]);
    await retention.update(actor, actor.tenantId, { selfie_video_days: 0 });
    const report = await runs.nightly();
    expect(report.reclassified).toEqual({ selfie_video: 2 });
    expect(report.purged).toEqual({ selfie_video: 1 });
    expect((await q<{ purged_at: Date | null }>(`SELECT purged_at FROM artifacts WHERE id = $1`, [ended.artifacts.selfie_video]))[0].purged_at).toEqual(clock);
    expect((await q<{ purged_at: Date | null }>(`SELECT purged_at FROM artifacts WHERE id = $1`, [open.artifacts.selfie_video]))[0].purged_at).toBeNull();
    await complete(open.id);
    expect((await q<{ purged_at: Date | null }>(`SELECT purged_at FROM artifacts WHERE id = $1`, [open.artifacts.selfie_video]))[0].purged_at).toEqual(clock);
  });

  it('keeps a regulated extension through a tightening', async () => {
    clock = new Date('2026-10-01T08:00:00.000Z');
    await retention.update(actor, actor.tenantId, { id_document_years: 7 });
    const s = await sessionWith(['id_document_image', 'mrz_text']);
    await retention.setRegulated(actor.tenantId, true);
    const ext = await retention.extendSession(actor, s.id, { id_document_years: 10, reason: 'court hold' });
    expect(ext.artifacts).toBe(2);
    await retention.update(actor, actor.tenantId, { id_document_years: 1 });
    await runs.nightly();
    const kept = await retainUntil(s.artifacts.id_document_image);
    expect(kept.getUTCFullYear()).toBe(2036);
  });
});
