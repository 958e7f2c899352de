import type { DataSource } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import { systemClock, type Clock } from '../clock';

export type ReviewSettingsValues = { secondReviewerForDeclines: boolean };

/**
 * A tenant's review settings (docs/console.md, "Second reviewer"): today one, "a second member
 * confirms every decline made in the console". Off until an owner or admin turns it on.
 */
export class ReviewSettings {
  constructor(
    private readonly db: DataSource,
    private readonly audit: Pick<AuditLogService, 'append'>,
    private readonly now: Clock = systemClock,
  ) {}

  async of(tenantId: string): Promise<ReviewSettingsValues> {
    const rows: { second_reviewer_for_declines: boolean }[] = await this.db.query(`SELECT second_reviewer_for_declines FROM tenant_review_settings WHERE tenant_id = $1`, [tenantId]);
    return { secondReviewerForDeclines: rows[0]?.second_reviewer_for_declines ?? false };
  }

  /** Changed by a member (owner or admin, checked by the caller), audited with the member in the change's transaction. */
  async update(tenantId: string, memberId: string, values: ReviewSettingsValues): Promise<ReviewSettingsValues> {
    await this.db.transaction(async (m) => {
      await m.query(
        `INSERT INTO tenant_review_settings (tenant_id, second_reviewer_for_declines, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (tenant_id) DO UPDATE SET second_reviewer_for_declines = EXCLUDED.second_reviewer_for_declines, updated_at = EXCLUDED.updated_at`,
        [tenantId, values.secondReviewerForDeclines, this.now()],
      );
      // Settings belong to the tenant, not to a mode: the live log holds them.
      await this.audit.append({ tenantId, livemode: true, action: 'console.review_settings_changed', subjectId: tenantId, detail: { member_id: memberId, second_reviewer_for_declines: values.secondReviewerForDeclines } }, m);
    });
    return values;
  }
}
