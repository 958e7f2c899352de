import type { DataSource } from 'typeorm';
import type { JobQueue } from '../jobs/job-queue';
import { SessionDataRightsQueries } from '../sessions/session-data-rights.queries';
import { SessionSql } from '../sessions/session.sql';
import { BIOMETRIC_CLASSES } from '../vault/artifact-classes';
import type { ArtifactPurger } from '../vault/artifact-purger';
import type { DsrJob, DsrJobService } from './dsr-job.service';
import { BIOMETRIC_PURGE_JOB, BiometricPurgeData } from './user-erasure.service';
import { assertNotDeleted, lockUser } from './user-state';

/** Checks whose scores describe the person's face or liveness: their scores go with the biometrics. */
const BIOMETRIC_CHECKS = ['liveness', 'face_match', 'anti_spoof'];

/**
 * `DELETE /v1/me/biometrics` and the first step of an erasure (docs/data-rights.md, "Biometric
 * purge"): every template, selfie image and liveness frame of the user's sessions is purged by the
 * ArtifactPurger (bytes gone, one `biometric.purged` per verification and class to the tenant,
 * tenant and service audit entries); the `liveness` badge goes from the sessions and the user's
 * claim; `photo` stays where the face match was recorded; the verification records keep their
 * decision with the biometric scores nulled. Runs as a durable job right after the request.
 */
export class BiometricPurgeService {
  constructor(
    private readonly db: DataSource,
    private readonly dsr: DsrJobService,
    private readonly purger: Pick<ArtifactPurger, 'purgeSessions'>,
    private readonly jobs: Pick<JobQueue, 'send'>,
  ) {}

  /** The request: a second one while the first is still running answers with that one. */
  async request(userId: string): Promise<DsrJob> {
    return this.db.transaction(async (m) => {
      assertNotDeleted(await lockUser(m, userId));
      const pending = await this.dsr.findOpen(userId, 'biometric_purge', m);
      if (pending) return pending;
      const job = await this.dsr.create({ userId, kind: 'biometric_purge', within: m });
      await this.jobs.send<BiometricPurgeData>(BIOMETRIC_PURGE_JOB, { userId, dsrJobId: job.id, reason: 'user_request' }, { within: m, singletonKey: `bio:${job.id}` });
      return job;
    });
  }

  /** The job for one user. A second run finds nothing left to purge and changes nothing. */
  run(data: BiometricPurgeData): Promise<void> {
    return this.runMany([data]);
  }

  /**
   * The job for the purges a worker fetched together (many users deleting at once): one purge of
   * all their sessions per reason, in one transaction per 500 artifacts (so one take of each audit
   * chain's lock and one statement per kind of row for the lot, instead of one set per user), then
   * one transaction that strips the biometric scores and badges of all of them and completes the
   * users' own requests. Every artifact still has its own `biometric.purged` event and audit entries.
   */
  async runMany(items: readonly BiometricPurgeData[]): Promise<void> {
    if (items.length === 0) return;
    const own = new Map<string, DsrJob>();
    for (const { dsrJobId, reason } of items) {
      if (reason !== 'user_request' || own.has(dsrJobId)) continue;
      const job = await this.dsr.get(dsrJobId);
      if (!job) continue;
      own.set(dsrJobId, job.status === 'received' ? await this.dsr.start(dsrJobId) : job);
    }
    const userIds = [...new Set(items.map((i) => i.userId))];
    const rows = await SessionDataRightsQueries.ofUsers(this.db, userIds);
    const sessionsOf = new Map<string, string[]>();
    for (const r of rows) sessionsOf.set(r.userId, [...(sessionsOf.get(r.userId) ?? []), r.id]);
    // The reason is part of each audit entry: one purge per reason (a user's second item finds nothing left).
    const purgedBySession: Record<string, number> = {};
    for (const reason of [...new Set(items.map((i) => i.reason))]) {
      const sessionIds = [...new Set(items.filter((i) => i.reason === reason).flatMap((i) => sessionsOf.get(i.userId) ?? []))];
      const outcome = await this.purger.purgeSessions(sessionIds, reason, BIOMETRIC_CLASSES);
      for (const [id, n] of Object.entries(outcome.bySession)) purgedBySession[id] = (purgedBySession[id] ?? 0) + n;
    }
    const sessionIds = rows.map((r) => r.id);
    await this.db.transaction(async (m) => {
      if (sessionIds.length) {
        await SessionDataRightsQueries.stripBiometrics(m, sessionIds, BIOMETRIC_CHECKS);
      }
      // The user's claim (`service_verification`) follows their sessions: no liveness, photo only where a match stands.
      await m.query(
        `UPDATE users u SET service_verification = u.service_verification || jsonb_build_object('badges',
            (SELECT COALESCE(jsonb_agg(b), '[]'::jsonb) FROM jsonb_array_elements_text(u.service_verification->'badges') b
              WHERE b <> 'liveness' AND (b <> 'photo' OR ${SessionSql.userHasPhotoBadge('u.id')})))
          WHERE u.id = ANY($1::text[]) AND u.service_verification IS NOT NULL`,
        [userIds],
      );
      for (const job of own.values()) {
        if (job.status === 'completed') continue;
        const purged = (sessionsOf.get(job.userId) ?? []).reduce((n, id) => n + (purgedBySession[id] ?? 0), 0);
        await this.dsr.complete(job.id, { purged_artifacts: purged }, m);
      }
    });
  }
}
