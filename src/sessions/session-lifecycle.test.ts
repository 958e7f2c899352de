import { openOwnDatabase } from '../../test/helpers/own-database';
import { NO_END_USERS, quietEffects } from '../../test/helpers/session-fakes';
import { Database } from '../db/database';
import { TenantKeyActor, ALL_SCOPES } from '../auth/actor';
import { TenantService } from '../tenants/tenant.service';
import { canTransition, SESSION_STATUSES } from './session-status';
import { SessionService } from './session.service';
import { testModeResult } from './test-mode-outcome';
import { TestModeAdvanceJob } from '../verification/test-mode-advance.job';

/** SessionService against a real PostgreSQL of its own (embedded, or a fresh database on DATABASE_URL's server, where test servers' expiry sweeps would race this clock), with a clock the test moves. */
describe('SessionService lifecycle', () => {
  let database: Database;
  let now = new Date('2026-01-01T00:00:00Z');
  let sessions: SessionService;
  let actor: TenantKeyActor;
  const sent: { name: string; data: object; startAfter?: Date }[] = [];

  beforeAll(async () => {
    database = await openOwnDatabase('lifecycle');
    sessions = new SessionService(database.dataSource, database.sql, { sendJobs: async (name, jobs) => void sent.push(...jobs.map((j) => ({ name, data: j.data, startAfter: j.startAfter }))), insertStatement: async () => null }, NO_END_USERS, quietEffects(), () => now);
    const tenant = await new TenantService(database.dataSource).create('lifecycle');
    actor = { kind: 'tenant_key', tenantId: tenant.tenantId, keyId: tenant.liveKey.id, livemode: true, scopes: ALL_SCOPES };
  });
  afterAll(async () => {
    await database?.close();
  });

  it('expires sessions not yet processing once 24 h have passed, and leaves the others', async () => {
    now = new Date('2026-01-01T00:00:00Z');
    const waiting = (await sessions.create(actor, { flowId: 'default', tier: 'T1' })).session;
    const started = (await sessions.create(actor, { flowId: 'default', tier: 'T1' })).session;
    const processing = (await sessions.create(actor, { flowId: 'default', tier: 'T1' })).session;
    await sessions.advance(started.id, 'in_progress');
    await sessions.advance(processing.id, 'in_progress');
    await sessions.advance(processing.id, 'processing');

    now = new Date('2026-01-01T23:59:59Z');
    await sessions.expireDue();
    expect((await sessions.get(actor, waiting.id)).status).toBe('created');

    now = new Date('2026-01-02T00:00:01Z');
    await sessions.expireDue();
    expect((await sessions.get(actor, waiting.id)).status).toBe('expired');
    expect((await sessions.get(actor, started.id)).status).toBe('expired');
    expect((await sessions.get(actor, processing.id)).status).toBe('processing');
  });

  it('schedules no test-mode jobs for live sessions and three for test sessions, at 2, 5 and 10 s', async () => {
    sent.length = 0;
    now = new Date('2026-03-01T00:00:00Z');
    await sessions.create(actor, { flowId: 'default', tier: 'T1' });
    expect(sent).toEqual([]);
    await sessions.create({ ...actor, livemode: false }, { flowId: 'default', tier: 'T1' });
    expect(sent.map((s) => s.startAfter!.getTime() - now.getTime())).toEqual([2_000, 5_000, 10_000]);
  });

  it('resolves test-mode sessions of the same tier and outcome to the same result, whenever they resolve', async () => {
    const job = new TestModeAdvanceJob(database.dataSource, sessions);
    const testActor = { ...actor, livemode: false };
    const resolve = async (at: string, tier: 'T2' | 'T4', metadata: Record<string, unknown>) => {
      now = new Date(at);
      const s = (await sessions.create(testActor, { flowId: 'default', tier, metadata })).session;
      await job.run({ sessionId: s.id, step: 'terminal' });
      return sessions.get(testActor, s.id);
    };
    const first = await resolve('2026-04-01T00:00:00Z', 'T4', {});
    const second = await resolve('2026-04-02T13:17:00Z', 'T4', { test_outcome: 'approved', note: 'other metadata' });
    expect(first.status).toBe('success');
    expect(second.status).toBe('success');
    expect(second.result).toEqual(first.result);
    expect(first.result).toMatchObject({ decision: 'approved', achieved_tier: 'T4', confidence: 0.96 });
    // Another outcome is another result: the comparison above can tell results apart.
    const declined = await resolve('2026-04-03T00:00:00Z', 'T4', { test_outcome: 'declined' });
    expect(declined.result).not.toEqual(first.result);
    expect(declined.result).toMatchObject({ decision: 'declined' });
  });

  it('refuses an illegal transition with invalid_state and keeps the stored status', async () => {
    const s = (await sessions.create(actor, { flowId: 'default', tier: 'T1' })).session;
    await expect(sessions.review(actor, s.id, { decision: 'approve', reason: 'fine by me' })).rejects.toMatchObject({ code: 'invalid_state' });
    await sessions.cancel(actor, s.id);
    await expect(sessions.cancel(actor, s.id)).rejects.toMatchObject({ code: 'invalid_state' });
    expect((await sessions.get(actor, s.id)).status).toBe('withdrawn');
  });
});

describe('the state machine of docs/api-behaviour.md', () => {
  it('allows exactly the documented transitions', () => {
    const allowed = SESSION_STATUSES.flatMap((from) => SESSION_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(
      [
        'created->in_progress',
        'created->expired',
        'created->withdrawn',
        'in_progress->processing',
        'in_progress->expired',
        'in_progress->withdrawn',
        'processing->success',
        'processing->failed',
        'processing->manual_review',
        'manual_review->success',
        'manual_review->failed',
        'manual_review->withdrawn',
      ].sort(),
    );
  });
});

describe('test-mode results (docs/api-behaviour.md, test mode and tiers)', () => {
  it('run the checks and award the badges of each tier', () => {
    const names = (t: Parameters<typeof testModeResult>[0]) => testModeResult(t, 'approved').result.checks.map((c) => c.name);
    expect(names('T0')).toEqual([]);
    expect(names('T1')).toEqual(['document_ocr', 'face_match']);
    expect(names('T3')).toEqual(['document_ocr', 'face_match', 'liveness', 'anti_spoof', 'sanctions_screening']);
    expect(names('T5')).toEqual(['document_ocr', 'face_match', 'liveness', 'anti_spoof', 'chip_passive_authentication']);
    expect(testModeResult('T4', 'approved').result.badges).toEqual(['photo', 'liveness', 'sanctions_clear', 'business']);
    expect(testModeResult('T5', 'approved').result.badges).toEqual(['photo', 'liveness', 'chip']);
    expect(testModeResult('T2', 'declined')).toMatchObject({ status: 'failed', result: { decision: 'declined', achieved_tier: 'T0', badges: [] } });
    expect(testModeResult('T2', 'review')).toMatchObject({ status: 'manual_review', result: { decision: 'review' } });
  });
});
