import type { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../errors';
import type { JobQueue, RetryPolicy } from '../jobs/job-queue';
import { SessionDataRightsQueries } from '../sessions/session-data-rights.queries';
import { SessionSql } from '../sessions/session.sql';
import type { SessionService } from '../sessions/session.service';
import type { ArtifactPurger } from '../vault/artifact-purger';
import type { DsrJob, DsrJobService } from './dsr-job.service';
import type { SocialDataRights } from './social-data-rights';
import type { UserObligations } from './user-obligations';
import { lockUser } from './user-state';
import { systemClock, type Clock } from '../clock';

export const ERASURE_GRACE_DAYS = 14;
/** D15: tenants with an active verification hear of a deletion at least this long before it happens. */
export const DELETION_NOTICE_DAYS = 7;
export const HARD_PURGE_JOB = 'dsr-hard-purge';
/** A purge that fails keeps trying, backing off from a minute to 6 hours between runs (about 3 days in all): it is a legal obligation. */
export const HARD_PURGE_RETRY: RetryPolicy = { limit: 20, delaySeconds: 60, backoff: true, maxDelaySeconds: 6 * 3600 };
export const BIOMETRIC_PURGE_JOB = 'dsr-biometric-purge';
/** `asOf`: the operator's `dsr purge-due --as-of` runs a purge as of a later date (docs/data-rights.md). */
export type HardPurgeData = { userId: string; asOf?: string };
export type BiometricPurgeData = { userId: string; dsrJobId: string; reason: 'user_request' | 'user_deleted' };

const DAY_MS = 86_400_000;
const OPEN_SESSION_STATUSES = ['created', 'in_progress', 'manual_review'];

/**
 * Two-phase erasure (docs/data-rights.md, "Erasure"). The soft delete happens in the request: the
 * user's state, the tenants' notices (`user.deleted`, `user.deletion.scheduled`), the flag on their
 * documents, and the two durable jobs (the biometric purge now, the hard purge after
 * ERASURE_GRACE_DAYS) commit in one transaction; open sessions are withdrawn and sign-in grants
 * revoked right after. The hard purge deletes or nulls every personal value the service holds
 * about the user and tells the same tenants `user.purged`.
 */
export class UserErasureService {
  constructor(
    private readonly db: DataSource,
    private readonly dsr: DsrJobService,
    private readonly sessions: Pick<SessionService, 'advanceMany'>,
    private readonly purger: Pick<ArtifactPurger, 'purgeSessions'>,
    private readonly obligations: UserObligations,
    private readonly jobs: Pick<JobQueue, 'send'>,
    private readonly revokeGrants: (userId: string) => Promise<unknown>,
    private readonly social: SocialDataRights | null,
    private readonly now: Clock = systemClock,
  ) {}

  /** `POST /v1/me/delete`. A second request while the first is pending answers with the same job. */
  async requestDeletion(userId: string): Promise<DsrJob> {
    const tenants = await this.obligations.tenantsOf(userId);
    const outcome = await this.db.transaction(async (m) => {
      const user = await lockUser(m, userId);
      if (user.state === 'soft_deleted') {
        const pending = await this.dsr.findOpen(userId, 'erasure', m);
        if (pending) return { job: pending, fresh: false };
      }
      if (user.state !== 'active' && user.state !== 'restricted') throw new DomainError('not_found', 'User not found');
      const now = this.now();
      // The hard purge is the loss a tenant is told of ahead (`user.deletion.scheduled`): never sooner than the notice.
      const purgeAfter = new Date(now.getTime() + Math.max(ERASURE_GRACE_DAYS, DELETION_NOTICE_DAYS) * DAY_MS);
      await m.query(`UPDATE users SET state = 'soft_deleted', deleted_at = $2, purge_after = $3, updated_at = $2 WHERE id = $1`, [userId, now, purgeAfter]);
      // Documents are flagged: they go with the hard purge, whatever retention they had.
      await m.query(
        `UPDATE artifacts SET retain_until = LEAST(retain_until, $2) WHERE session_id IN ${SessionSql.idsOfUser('$1')} AND purged_at IS NULL`,
        [userId, purgeAfter],
      );
      // D15, docs/data-rights.md "Erasure": at the request, the tenants with an active verification
      // are told when the data goes (`scheduled_for` = the hard purge), then every tenant that the
      // user's access ends now (`user.deleted`): written in that order, with the request's time.
      await this.obligations.emit(m, [
        { tenants: tenants.filter((t) => t.active), type: 'user.deletion.scheduled', data: { scheduled_for: purgeAfter.toISOString() } },
        { tenants, type: 'user.deleted', data: { deleted_at: now.toISOString(), purge_after: purgeAfter.toISOString() } },
      ]);
      await this.jobs.send<HardPurgeData>(HARD_PURGE_JOB, { userId }, { within: m, startAfter: purgeAfter, singletonKey: `purge:${userId}`, retry: HARD_PURGE_RETRY });
      // The DSR job's audit entries lock the service's audit log until this transaction commits:
      // written last, so that many simultaneous deletions queue on that lock for these few
      // statements only, not for the whole transaction.
      const created = await this.dsr.create({ userId, kind: 'erasure', details: { purge_after: purgeAfter.toISOString() }, within: m });
      const job = await this.dsr.start(created.id, m);
      await this.jobs.send<BiometricPurgeData>(BIOMETRIC_PURGE_JOB, { userId, dsrJobId: job.id, reason: 'user_deleted' }, { within: m, singletonKey: `bio:${job.id}` });
      return { job, fresh: true };
    });
    if (outcome.fresh) await this.afterSoftDelete(userId);
    return outcome.job;
  }

  /** Outside the transaction: each is idempotent, and a crash before them leaves nothing a tenant can read (the state already hides the user). */
  private async afterSoftDelete(userId: string): Promise<void> {
    const open = await SessionDataRightsQueries.idsOfUserInStatus(this.db, userId, OPEN_SESSION_STATUSES);
    await this.sessions.advanceMany(open, 'withdrawn');
    await this.revokeGrants(userId);
  }

  /** Every soft-deleted user whose grace period ended by `asOf` (the CLI's `dsr purge-due`; the jobs run one each). */
  async purgeDue(asOf: Date = this.now()): Promise<string[]> {
    const due: { id: string }[] = await this.db.query(`SELECT id FROM users WHERE state = 'soft_deleted' AND purge_after <= $1 ORDER BY purge_after LIMIT 1000`, [asOf]);
    const purged: string[] = [];
    for (const { id } of due) if (await this.hardPurge(id, asOf)) purged.push(id);
    return purged;
  }

  /**
   * The hard purge of one user, when its time has come by `asOf`; false otherwise (not deleted,
   * already purged, or too early: a job run early, or one whose deletion was withdrawn, changes nothing).
   */
  async hardPurge(userId: string, asOf: Date = this.now()): Promise<boolean> {
    const rows: { state: string; purge_after: Date | null }[] = await this.db.query(`SELECT state, purge_after FROM users WHERE id = $1`, [userId]);
    const u = rows[0];
    if (!u || u.state !== 'soft_deleted' || !u.purge_after || new Date(u.purge_after).getTime() > asOf.getTime()) return false;
    const tenants = await this.obligations.tenantsOf(userId);
    const sessionIds = await SessionDataRightsQueries.idsOfUser(this.db, userId);
    await this.purger.purgeSessions(sessionIds, 'user_purged'); // the vault's bytes: every class
    const erasureJob = await this.dsr.findOpen(userId, 'erasure');
    await this.social?.erase(userId, { dsrId: erasureJob?.id ?? `erasure:${userId}` });
    return this.db.transaction(async (m) => {
      const user = await lockUser(m, userId);
      if (user.state !== 'soft_deleted') return false;
      await scrubPersonalData(m, userId, sessionIds);
      const erasure = await this.dsr.findOpen(userId, 'erasure', m);
      // The user's other requests go with what they held (export keys, delegated callbacks); the erasure itself stays, completed, as its record.
      await m.query(`DELETE FROM dsr_jobs WHERE user_id = $1 AND id <> $2`, [userId, erasure?.id ?? '']);
      const now = this.now();
      await m.query(`UPDATE users SET state = 'purged', purged_at = $2, updated_at = $2 WHERE id = $1`, [userId, now]);
      await this.obligations.emit(m, [{ tenants, type: 'user.purged', data: { purged_at: now.toISOString() } }]);
      if (erasure) await this.dsr.complete(erasure.id, { purged_at: now.toISOString() }, m);
      return true;
    });
  }
}

/**
 * Deletes every row that holds the user's personal data and nulls it where the row must stay (the
 * user row, so ids keep resolving; their sessions, which are the tenants' verification records).
 * Audit entries hold no personal data (they are checked on append) and stay, with their hashes.
 */
async function scrubPersonalData(m: EntityManager, userId: string, sessionIds: string[]): Promise<void> {
  const [{ email_hash: emailHash }] = (await m.query(`SELECT email_hash FROM users WHERE id = $1`, [userId])) as { email_hash: string | null }[];
  if (emailHash) {
    await m.query(`DELETE FROM mail_messages WHERE to_hash = $1`, [emailHash]);
    await m.query(`DELETE FROM email_codes WHERE email_hash = $1`, [emailHash]);
    await m.query(`DELETE FROM member_invitations WHERE email_hash = $1`, [emailHash]);
  }
  // The console (docs/console.md): the person's memberships, second factors and sign-ins.
  for (const table of ['console_sessions', 'console_recovery_codes', 'console_passkeys', 'console_totp', 'members']) await m.query(`DELETE FROM ${table} WHERE user_id = $1`, [userId]);
  await m.query(`DELETE FROM oidc_payloads WHERE account_id = $1`, [userId]);
  await m.query(`DELETE FROM review_cases WHERE user_id = $1`, [userId]);
  await m.query(`DELETE FROM profile_changes WHERE user_id = $1`, [userId]);
  await m.query(`DELETE FROM user_subjects WHERE user_id = $1`, [userId]);
  if (sessionIds.length) {
    // The verification record stays: its decision, tiers and badges; nothing that names or describes the person.
    await SessionDataRightsQueries.scrubPersonalData(m, sessionIds);
    // What was announced about those sessions keeps its shape, without the tenant's reference or hit details.
    await m.query(
      `UPDATE outbox_events SET payload = (payload - 'sanctions_hits') || CASE WHEN payload ? 'reference' THEN '{"reference": null}'::jsonb ELSE '{}'::jsonb END
        WHERE session_id = ANY($1::text[])`,
      [sessionIds],
    );
    await m.query(`UPDATE hosted_captures SET challenge = NULL WHERE session_id = ANY($1::text[])`, [sessionIds]);
  }
  await m.query(
    `UPDATE users SET email_sealed = NULL, email_hash = NULL, password_hash = NULL, display_name = NULL, handle = NULL, public_links = '[]'::jsonb,
            bio = NULL, legal_name_sealed = NULL, date_of_birth_sealed = NULL, nationality_sealed = NULL, service_verification = NULL, objections = '[]'::jsonb
      WHERE id = $1`,
    [userId],
  );
}
