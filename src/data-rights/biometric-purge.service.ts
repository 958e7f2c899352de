import type { DataSource } from 'typeorm';
import type { JobQueue } from '../jobs/job-queue';
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

  /** The job. A second run finds nothing left to purge and changes nothing. */
  async run({ userId, dsrJobId, reason }: BiometricPurgeData): Promise<void> {
    const own = reason === 'user_request' ? await this.dsr.get(dsrJobId) : null;
    if (own?.status === 'received') await this.dsr.start(dsrJobId);
    const sessionIds: string[] = (await this.db.query(`SELECT id FROM sessions WHERE user_id = $1`, [userId])).map((r: { id: string }) => r.id);
    const outcome = await this.purger.purgeSessions(sessionIds, reason, BIOMETRIC_CLASSES);
    await this.db.transaction(async (m) => {
      if (sessionIds.length) {
        await m.query(
          `UPDATE sessions s SET result = s.result
              || jsonb_build_object('badges', (SELECT COALESCE(jsonb_agg(b), '[]'::jsonb) FROM jsonb_array_elements_text(s.result->'badges') b
                                               WHERE b <> 'liveness' AND (b <> 'photo' OR EXISTS (SELECT 1 FROM jsonb_array_elements(s.result->'checks') c WHERE c->>'name' = 'face_match' AND c->>'status' = 'pass'))))
              || jsonb_build_object('checks', (SELECT COALESCE(jsonb_agg(CASE WHEN c->>'name' = ANY($2::text[]) THEN c - 'score' ELSE c END), '[]'::jsonb) FROM jsonb_array_elements(s.result->'checks') c))
              || '{"signals": []}'::jsonb
              || jsonb_build_object('evidence_artifact_ids', (SELECT COALESCE(jsonb_agg(a.id), '[]'::jsonb) FROM artifacts a
                                               WHERE a.id IN (SELECT jsonb_array_elements_text(COALESCE(s.result->'evidence_artifact_ids', '[]'::jsonb))) AND a.purged_at IS NULL))
            WHERE s.id = ANY($1::text[]) AND s.result IS NOT NULL`,
          [sessionIds, BIOMETRIC_CHECKS],
        );
      }
      // The user's claim (`service_verification`) follows their sessions: no liveness, photo only where a match stands.
      await m.query(
        `UPDATE users u SET service_verification = u.service_verification || jsonb_build_object('badges',
            (SELECT COALESCE(jsonb_agg(b), '[]'::jsonb) FROM jsonb_array_elements_text(u.service_verification->'badges') b
              WHERE b <> 'liveness' AND (b <> 'photo' OR EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND s.result->'badges' ? 'photo'))))
          WHERE u.id = $1 AND u.service_verification IS NOT NULL`,
        [userId],
      );
      if (own && own.status !== 'completed') await this.dsr.complete(dsrJobId, { purged_artifacts: outcome.purged }, m);
    });
  }
}
