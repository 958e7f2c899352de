import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, openDatabase } from '../db/database';
import { canTransitionDsr, DSR_KINDS, DSR_STATUSES } from './dsr-job-status';
import { DsrJob, DsrJobService } from './dsr-job.service';

/** DsrJobService against a real PostgreSQL (embedded, or DATABASE_URL), with a clock the test moves. */
describe('DsrJobService', () => {
  let database: Database;
  let now = new Date('2026-11-27T10:00:00Z'); // a Friday
  let jobs: DsrJobService;
  const settled: DsrJob[] = [];
  const user = `usr_${Date.now()}`;
  // Unique per run: a PostgreSQL server (DATABASE_URL) keeps the jobs of earlier runs.
  const [tenantA, tenantB, tenantC] = ['a', 'b', 'c'].map((t) => `ten_${t}${Date.now()}`);

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-dsr-')) }, 4);
    jobs = new DsrJobService(database.dataSource, async () => undefined, async (job) => void settled.push(job), () => now);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('receives a request at once, due for acknowledgement in 3 business days and completion in 30 days', async () => {
    now = new Date('2026-11-27T10:00:00Z');
    const job = await jobs.create({ userId: user, kind: 'export' });
    expect(job).toMatchObject({ status: 'received', kind: 'export', delegatedBy: null });
    expect(job.id).toMatch(/^dsr_[A-Za-z0-9]{24}$/);
    expect(job.acknowledgeBy.toISOString()).toBe('2026-12-02T10:00:00.000Z'); // Mon, Tue, Wed
    expect(job.expectedBy.toISOString()).toBe('2026-12-27T10:00:00.000Z');
  });

  it('gives a review 7 business days to completion', async () => {
    now = new Date('2026-11-27T10:00:00Z');
    const job = await jobs.create({ userId: user, kind: 'review', details: { verification_id: 'vses_x', reason: 'wrong' } });
    expect(job.expectedBy.toISOString()).toBe('2026-12-08T10:00:00.000Z');
    expect((await jobs.get(job.id))?.details).toEqual({ verification_id: 'vses_x', reason: 'wrong' });
  });

  it('moves a job through in_progress to completed, stamps the times and tells the settled listeners once', async () => {
    settled.length = 0;
    const job = await jobs.create({ userId: user, kind: 'biometric_purge' });
    now = new Date('2026-11-27T10:00:05Z');
    expect((await jobs.start(job.id)).startedAt?.toISOString()).toBe('2026-11-27T10:00:05.000Z');
    now = new Date('2026-11-27T10:00:09Z');
    const done = await jobs.complete(job.id, { purged: 3 });
    expect(done).toMatchObject({ status: 'completed', result: { purged: 3 } });
    expect(done.completedAt?.toISOString()).toBe('2026-11-27T10:00:09.000Z');
    expect(settled.map((j) => [j.id, j.status])).toEqual([[job.id, 'completed']]);
  });

  it('refuses a move the state machine does not allow with invalid_state', async () => {
    const job = await jobs.create({ userId: user, kind: 'objection' });
    await jobs.complete(job.id);
    await expect(jobs.start(job.id)).rejects.toMatchObject({ code: 'invalid_state' });
    await expect(jobs.deny(job.id, 'late')).rejects.toMatchObject({ code: 'invalid_state' });
  });

  it('answers not_found for an unknown job and for another user\'s job', async () => {
    await expect(jobs.start('dsr_nope')).rejects.toMatchObject({ code: 'not_found' });
    const job = await jobs.create({ userId: user, kind: 'restriction' });
    await expect(jobs.getForUser(job.id, 'usr_someone_else')).rejects.toMatchObject({ code: 'not_found' });
    expect((await jobs.getForUser(job.id, user)).id).toBe(job.id);
  });

  it('keeps a delegated request awaiting confirmation, restarts its clock when the user confirms, and lists it only for its tenant and mode', async () => {
    now = new Date('2026-11-23T09:00:00Z');
    const job = await jobs.createDelegated({ userId: user, kind: 'export', tenant: { tenantId: tenantA, livemode: false }, callbackUrl: 'http://example.com/cb' });
    expect(job.status).toBe('awaiting_confirmation');
    expect(job.confirmBy?.toISOString()).toBe('2026-11-30T09:00:00.000Z');
    await expect(jobs.confirm(job.id, 'usr_other')).rejects.toMatchObject({ code: 'not_found' });
    now = new Date('2026-11-25T09:00:00Z');
    const confirmed = await jobs.confirm(job.id, user);
    expect(confirmed).toMatchObject({ status: 'received' });
    expect(confirmed.receivedAt.toISOString()).toBe('2026-11-25T09:00:00.000Z');
    expect(confirmed.acknowledgeBy.toISOString()).toBe('2026-11-30T09:00:00.000Z');
    expect((await jobs.list({ tenant: { tenantId: tenantA, livemode: false } })).map((j) => j.id)).toEqual([job.id]);
    expect(await jobs.list({ tenant: { tenantId: tenantA, livemode: true } })).toEqual([]);
    expect(await jobs.list({ tenant: { tenantId: tenantB, livemode: false } })).toEqual([]);
    // A delegated export is not the user's own open export.
    expect((await jobs.findOpen(user, 'export'))?.delegatedBy ?? null).toBeNull();
  });

  it('finds delegated requests whose confirmation window ended, and denies them with not_confirmed', async () => {
    now = new Date('2026-11-01T00:00:00Z');
    const job = await jobs.createDelegated({ userId: user, kind: 'export', tenant: { tenantId: tenantC, livemode: true }, callbackUrl: 'https://example.com/cb' });
    expect(await jobs.unconfirmedBefore(new Date('2026-11-07T23:59:59Z'))).not.toContain(job.id);
    const due = await jobs.unconfirmedBefore(new Date('2026-11-08T00:00:00Z'));
    expect(due).toContain(job.id);
    now = new Date('2026-11-08T00:00:00Z');
    await expect(jobs.confirm(job.id, user)).rejects.toMatchObject({ code: 'invalid_state' });
    expect(await jobs.deny(job.id, 'not_confirmed')).toMatchObject({ status: 'denied', reason: 'not_confirmed' });
  });

  it('returns the open request of a kind, so asking twice does not make a second job', async () => {
    const other = `usr_open_${Date.now()}`;
    expect(await jobs.findOpen(other, 'export')).toBeNull();
    const job = await jobs.create({ userId: other, kind: 'export' });
    expect((await jobs.findOpen(other, 'export'))?.id).toBe(job.id);
    await jobs.complete(job.id);
    expect(await jobs.findOpen(other, 'export')).toBeNull();
  });

  it('lets only one of two concurrent movers win', async () => {
    const job = await jobs.create({ userId: user, kind: 'erasure' });
    const outcomes = await Promise.allSettled([jobs.complete(job.id), jobs.fail(job.id, 'x')]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  });

  it('has an end for every status: each non-final status can reach completed, denied or failed', () => {
    expect(DSR_KINDS).toHaveLength(7);
    for (const s of DSR_STATUSES) {
      const final = ['completed', 'denied', 'failed'].includes(s);
      expect(DSR_STATUSES.some((t) => canTransitionDsr(s, t))).toBe(!final);
    }
  });
});
