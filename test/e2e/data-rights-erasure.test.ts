import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { boundSession, boundSessionWithCaptures, Delivered, deliveredTo, operatorGraphql, registerEndpoint, signedInUser, SignedInUser } from '../helpers/data-rights-fixtures';
import { dbClient } from '../helpers/hosted-client';
import { findPersonalData } from '../helpers/personal-data-scan';
import { cli, eventually, graphql, http, TestServer } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { createOidcTenant, OidcTenant, startOidcServer } from '../helpers/oidc-login';
import { blobFile } from '../helpers/vault-files';

const ADMIN_API_KEY = 'op_admin_erasure_0123456789abcdefghijklmnopqrstuvwxyz';
const DAY = 86_400_000;

/**
 * Two-phase erasure through the public surface (docs/data-rights.md, "The user data lifecycle"):
 * the soft delete and its notices, then the hard purge run as of 15 days later, after which a scan
 * of every column of every table finds none of the user's values.
 */
describe('POST /v1/me/delete', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let db: Client;
  let acme: OidcTenant;
  let other: OidcTenant;
  let secrets: Record<string, string>;
  let user: SignedInUser;
  let sessionIds: string[];
  const run = randomBytes(4).toString('hex');
  const planted = {
    email: `erin.${run}@example.org`,
    displayName: `Erin Plantedname ${run}`,
    handle: `erin_${run}`,
    bio: `bio-marker-${run}`,
    metadata: `meta-marker-${run}`,
    documentNumber: `P${run.toUpperCase()}77`,
    legalName: `Erin Legalname ${run}`,
    dateOfBirth: '1937-11-29',
    reference: `ref-${run}`,
  };
  const events = (path: string): Delivered[] => deliveredTo(receiver, path, secrets[path]);
  const eventCreatedAt = async (eventId: string): Promise<number> => new Date((await db.query(`SELECT created_at FROM outbox_events WHERE event_id = $1`, [eventId])).rows[0].created_at).getTime();

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    server = await startOidcServer({ ADMIN_API_KEY });
    db = await dbClient(server);
    acme = await createOidcTenant(server, 'acme');
    other = await createOidcTenant(server, 'other');
    secrets = { '/acme': await registerEndpoint(server, receiver, acme.test_api_key, '/acme'), '/other': await registerEndpoint(server, receiver, other.test_api_key, '/other') };
    // The session the deletion withdraws sends its verification.failed (D22) to an endpoint that asked for it.
    const failedEndpoint = await http(server, 'POST', '/v1/verify/webhooks', { key: acme.test_api_key, json: { url: receiver.url('/acme-failed'), events: ['verification.failed'] } });
    secrets['/acme-failed'] = failedEndpoint.body.signing_secret;
    user = await signedInUser(server, acme, { email: planted.email });
    expect((await http(server, 'PATCH', '/v1/me/profile', { key: user.accessToken, json: { display_name: planted.displayName, handle: planted.handle, bio: planted.bio, legal_name: planted.legalName, date_of_birth: planted.dateOfBirth } })).status).toBe(200);
    // Internal tools approve the verified fields, so they are stored on the user too.
    const pending = await operatorGraphql(server, ADMIN_API_KEY, '{ profileChanges(status: "pending") { id } }');
    for (const c of pending.body.data.profileChanges) {
      await operatorGraphql(server, ADMIN_API_KEY, 'mutation($id: ID!) { decideProfileChange(id: $id, decision: "approve") { status } }', { id: c.id });
    }
    const metadata = { note: planted.metadata, document_number: planted.documentNumber, test_outcome: 'approved' };
    // A verification that succeeds (an active verification: the tenant gets user.deletion.scheduled),
    // and one still open, with captures, when the user leaves (it is withdrawn).
    sessionIds = [await boundSession(server, db, acme, user, { reference_id: planted.reference, metadata })];
    // Live: a test session reaches its outcome at 10 s whatever its page does (D22), so only a live one stays open
    // until the user leaves. Live endpoints need https, so its events are read where they are stored (the outbox).
    sessionIds.push(await boundSessionWithCaptures(server, db, acme, user, { metadata: { note: planted.metadata, document_number: planted.documentNumber } }, { live: true }));
    await eventually(async () => ((await http(server, 'GET', `/v1/verify/sessions/${sessionIds[0]}`, { key: acme.test_api_key })).body.status === 'success' ? true : undefined));
  });

  afterAll(async () => {
    await db?.end();
    await server?.stop();
    await receiver?.close();
  });

  it('refuses a tenant API key with 403 user_token_required', async () => {
    const r = await http(server, 'POST', '/v1/me/delete', { key: acme.test_api_key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('user_token_required');
  });

  /** The blob files of the user's artifacts, as they were before the deletion request (the store's side of the erasure scan). */
  let blobFiles: string[] = [];

  it('soft-deletes at once: 202 with the erasure job, tenant reads of the user are 404, notices reach the tenant that verified the user', async () => {
    const keys = await db.query(`SELECT blob_key FROM artifacts WHERE session_id = ANY($1) AND blob_key IS NOT NULL`, [sessionIds]);
    blobFiles = keys.rows.map((r: { blob_key: string }) => blobFile(server.env.DATA_DIR!, r.blob_key));
    expect(blobFiles.length).toBeGreaterThan(0);
    expect(blobFiles.filter((f) => fs.existsSync(f))).toEqual(blobFiles);
    const before = Date.now();
    const r = await http(server, 'POST', '/v1/me/delete', { key: user.accessToken });
    const answered = Date.now();
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ kind: 'erasure', status: 'in_progress' });
    for (const [i, id] of sessionIds.entries()) {
      const read = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: i === 1 ? acme.live_api_key : acme.test_api_key });
      expect(read.status).toBe(404);
      expect(read.body.error.code).toBe('not_found');
    }
    const q = await graphql(server, 'query($id: ID!) { session(id: $id) { id } }', { id: sessionIds[0] }, acme.test_api_key);
    expect(q.body.data?.session ?? null).toBeNull();

    const deleted = await eventually(async () => events('/acme').find((e) => e.type === 'user.deleted'));
    expect(deleted).toMatchObject({ signed: true, livemode: false, data: { user_sub: user.sub } });
    const purgeAfter = Date.parse(deleted.data.purge_after);
    expect(purgeAfter - Date.parse(deleted.data.deleted_at)).toBe(14 * DAY);
    const scheduled = await eventually(async () => events('/acme').find((e) => e.type === 'user.deletion.scheduled'));
    expect(scheduled).toMatchObject({ signed: true, data: { user_sub: user.sub } });
    // Sent at the request, and scheduled for the hard purge: at least 7 days ahead (D15).
    expect(scheduled.data.scheduled_for).toBe(deleted.data.purge_after);
    expect(Date.parse(scheduled.data.scheduled_for)).toBeGreaterThanOrEqual(before + 7 * DAY);
    const scheduledAt = await eventCreatedAt(scheduled.id);
    expect(scheduledAt).toBeGreaterThanOrEqual(before);
    expect(scheduledAt).toBeLessThanOrEqual(answered);
    expect(scheduledAt).toBeLessThanOrEqual(await eventCreatedAt(deleted.id));
    // The open session the deletion withdrew sends one verification.failed saying so (D22).
    const stored = async (type: string) =>
      (await db.query(`SELECT type, livemode, payload, created_at FROM outbox_events WHERE tenant_id = $1 AND type = $2 AND (session_id = $3 OR payload->>'verification_id' = $3)`, [acme.tenant_id, type, sessionIds[1]])).rows;
    const withdrawn = await eventually(async () => ((await stored('verification.failed')).length ? stored('verification.failed') : undefined));
    expect(withdrawn).toEqual([expect.objectContaining({ type: 'verification.failed', livemode: true, payload: expect.objectContaining({ status: 'withdrawn', session_id: sessionIds[1] }) })]);
    // Biometric artifacts go within 60 s of the request: their purge is a job queued with the deletion, due at once
    // (not at a later time), which the workers take at their next poll (JOB_POLL_SECONDS, 0.5 s). The test reads that
    // schedule, not a stopwatch: how soon a loaded machine's worker gets to it is the machine's, not the product's.
    const schema = server.env.JOB_SCHEMA ?? 'pgboss';
    const purgeJobs = await db.query(`SELECT start_after, created_on FROM ${schema}.job WHERE name = 'dsr-biometric-purge' AND data->>'userId' = $1`, [user.userId]);
    expect(purgeJobs.rows).toHaveLength(1);
    expect(new Date(purgeJobs.rows[0].start_after).getTime()).toBeLessThanOrEqual(answered);
    expect(purgeJobs.rows[0].start_after).toEqual(purgeJobs.rows[0].created_on);
    // Each purged artifact is announced.
    const [purged] = await eventually(async () => ((await stored('biometric.purged')).length ? stored('biometric.purged') : undefined), 120_000);
    expect(purged).toMatchObject({ livemode: true, payload: { verification_id: sessionIds[1], artifact: 'selfie_image', purged_at: expect.any(String) } });
    expect(new Date(purged.created_at).getTime()).toBeGreaterThanOrEqual(before);
    const selfies = await db.query(`SELECT count(*)::int AS n FROM artifacts WHERE session_id = ANY($1) AND class = 'selfie_image' AND purged_at IS NULL`, [sessionIds]);
    expect(selfies.rows[0].n).toBe(0);
    // Open sessions are withdrawn; documents are flagged for the hard purge.
    const rows = await db.query(`SELECT status FROM sessions WHERE id = ANY($1) ORDER BY created_at`, [sessionIds]);
    expect(rows.rows.map((x) => x.status)).toEqual(['success', 'withdrawn']);
    const docs = await db.query(`SELECT retain_until FROM artifacts WHERE session_id = ANY($1) AND class = 'id_document_image'`, [sessionIds]);
    for (const d of docs.rows) expect(new Date(d.retain_until).getTime()).toBeLessThanOrEqual(purgeAfter);
  });

  it("revokes the user's sign-in: the token no longer opens /v1/me (so a second delete is 401, and the first job stands)", async () => {
    const r = await http(server, 'POST', '/v1/me/delete', { key: user.accessToken });
    expect(r.status).toBe(401);
    const jobs = await db.query(`SELECT status FROM dsr_jobs WHERE user_id = $1 AND kind = 'erasure'`, [user.userId]);
    expect(jobs.rows).toEqual([{ status: 'in_progress' }]);
  });

  it('hard-purges when its 14 days are over (run as of 15 days later): user.purged, and no value of the user is left in any table, column or vault blob', async () => {
    const asOf = new Date(Date.now() + 15 * DAY).toISOString();
    const early = await cli(server.env, ['dsr', 'purge-due', '--as-of', new Date(Date.now() + 13 * DAY).toISOString(), '--json']);
    expect(early.json?.enqueued).not.toContain(user.userId); // (a shared database may hold other tests' deleted users)
    const due = await cli(server.env, ['dsr', 'purge-due', '--as-of', asOf, '--json']);
    expect(due.code).toBe(0);
    expect(due.json?.enqueued).toContain(user.userId);
    const purged = await eventually(async () => events('/acme').find((e) => e.type === 'user.purged'));
    expect(purged).toMatchObject({ signed: true, data: { user_sub: user.sub, purged_at: expect.any(String) } });

    const hits = await findPersonalData(db, Object.values(planted));
    expect(hits).toEqual([]);
    const blobs = await db.query(`SELECT count(*)::int AS n FROM artifact_blobs b JOIN artifacts a ON a.id = b.artifact_id WHERE a.session_id = ANY($1)`, [sessionIds]);
    expect(blobs.rows[0].n).toBe(0);
    // The blob store is scanned too: none of the files the user's artifacts had is left.
    expect(blobFiles.filter((f) => fs.existsSync(f))).toEqual([]);
    const userRow = await db.query(`SELECT state, email_sealed, email_hash, display_name FROM users WHERE id = $1`, [user.userId]);
    expect(userRow.rows).toEqual([{ state: 'purged', email_sealed: null, email_hash: null, display_name: null }]);
    // The verification records stay for the tenant's books, with no personal data.
    const sessions = await db.query(`SELECT metadata, reference_id, result->>'decision' AS decision FROM sessions WHERE id = $1`, [sessionIds[0]]);
    expect(sessions.rows).toEqual([{ metadata: {}, reference_id: null, decision: 'approved' }]);
    // Audit entries stay, their chain unbroken (they never held personal data).
    const audit = await db.query(`SELECT count(*)::int AS n FROM audit_log`);
    expect(audit.rows[0].n).toBeGreaterThan(0);
  });

  it('tells nothing to a tenant that never verified the user', async () => {
    expect(events('/other').filter((e) => /^(user|biometric)\./.test(e.type))).toEqual([]);
  });
});
