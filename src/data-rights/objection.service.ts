import type { DataSource } from 'typeorm';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import type { DsrJob, DsrJobService } from './dsr-job.service';
import type { SocialDataRights } from './social-data-rights';
import { assertNotDeleted, latestJob, lockUser } from './user-state';
import { systemClock, type Clock } from '../clock';

/** Processing a user may object to (D15: feed ranking, done by the social service the gateway fronts). */
export const OBJECTABLE_PROCESSING = ['feed_ranking'] as const;
export type ObjectableProcessing = (typeof OBJECTABLE_PROCESSING)[number];

/**
 * `POST /v1/me/object` (docs/data-rights.md, "Objection"): recorded on the user (shown in the
 * profile and the export) as an `objection` DSR job, then passed to the social upstream that does
 * the processing. Objecting again to the same processing answers with the request that recorded it.
 */
export class ObjectionService {
  constructor(
    private readonly db: DataSource,
    private readonly dsr: DsrJobService,
    private readonly social: SocialDataRights | null,
    private readonly logger: Logger,
    private readonly now: Clock = systemClock,
  ) {}

  async object(userId: string, processing: unknown): Promise<DsrJob> {
    if (typeof processing !== 'string' || !(OBJECTABLE_PROCESSING as readonly string[]).includes(processing)) {
      throw new DomainError('invalid_request', `processing must be one of: ${OBJECTABLE_PROCESSING.join(', ')}`);
    }
    const { job, fresh } = await this.db.transaction(async (m) => {
      const user = await lockUser(m, userId);
      assertNotDeleted(user);
      if ((user.objections ?? []).some((o) => o.processing === processing)) {
        const last = await latestJob(m, userId, 'objection', { processing });
        const existing = last && (await this.dsr.get(last, m));
        if (existing) return { job: existing, fresh: false };
      }
      const created = await this.dsr.create({ userId, kind: 'objection', details: { processing }, within: m });
      const entry = { processing, objected_at: this.now().toISOString() };
      await m.query(`UPDATE users SET objections = objections || $2::jsonb, updated_at = now() WHERE id = $1 AND NOT objections @> $3::jsonb`, [
        userId,
        JSON.stringify([entry]),
        JSON.stringify([{ processing }]),
      ]);
      return { job: await this.dsr.start(created.id, m), fresh: true };
    });
    if (!fresh) return job;
    try {
      await this.social?.object(userId, processing, { dsrId: job.id });
      return await this.dsr.complete(job.id, { processing, upstream: this.social?.configured ? 'notified' : 'none_configured' });
    } catch (err) {
      // The objection stays recorded; the request shows that the upstream was not told.
      this.logger.error({ err, dsrJobId: job.id }, 'social upstream refused an objection');
      return this.dsr.fail(job.id, 'upstream_unavailable');
    }
  }
}
