import type { AlsoWithin } from '../db/also-within';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AuditLogService } from '../audit/audit-log.service';
import type { TenantKeyActor, TenantScope } from '../auth/actor';
import { DomainError, notFound } from '../errors';
import { randomBase62, SESSION_ID_PATTERN } from '../ids';
import { parseExtension, parseRetentionPatch, RETENTION_FIELDS } from './retention-policy';
import { DEFAULT_POLICY, RetentionPolicy } from '../vault/artifact-retention';
import { systemClock, type Clock } from '../clock';
import { SessionReader } from '../sessions/session-reader';

/** The record of GET/PATCH /v1/developer/tenants/{tenant_id}/retention. */
export type RetentionRecord = RetentionPolicy & { tenant_id: string; livemode: boolean; updated_at: string | null };

export type RetentionExtension = { id: string; session_id: string; id_document_years: number; retain_until: string; artifacts: number; created_at: string };

type PolicyRow = RetentionPolicy & { updated_at: Date | string };

/**
 * Tenant retention per mode: read, change (audited with old and new values), and the policy in
 * force when an artifact is stored. Regulated tenants may extend one session's ID documents.
 */
export class RetentionService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditLogService,
    private readonly now: Clock = systemClock,
  ) {}

  /** Another tenant's id is `not_found`, never a hint that it exists. */
  private own(scope: TenantScope, tenantId: string): void {
    if (tenantId !== scope.tenantId) throw notFound('Tenant');
  }

  private async row(tenantId: string, livemode: boolean): Promise<PolicyRow | null> {
    const rows: PolicyRow[] = await this.db.query(
      `SELECT biometric_template_days, selfie_image_days, selfie_video_days, id_document_years, updated_at FROM tenant_retention WHERE tenant_id = $1 AND livemode = $2`,
      [tenantId, livemode],
    );
    return rows[0] ?? null;
  }

  async get(scope: TenantScope, tenantId: string): Promise<RetentionRecord> {
    this.own(scope, tenantId);
    const row = await this.row(scope.tenantId, scope.livemode);
    return present(scope, row ?? { ...DEFAULT_POLICY, updated_at: null });
  }

  /**
   * A partial update. Tightening applies to new artifacts at once and to stored ones of open
   * sessions at the next nightly pass; loosening applies to future uploads only.
   */
  async update(scope: TenantScope, tenantId: string, body: unknown, also?: AlsoWithin<RetentionRecord>): Promise<RetentionRecord> {
    this.own(scope, tenantId);
    const patch = parseRetentionPatch(body);
    const at = this.now();
    return this.db.transaction(async (m) => {
      await m.query(
        `INSERT INTO tenant_retention (tenant_id, livemode, biometric_template_days, selfie_image_days, selfie_video_days, id_document_years, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tenant_id, livemode) DO NOTHING`,
        [scope.tenantId, scope.livemode, DEFAULT_POLICY.biometric_template_days, DEFAULT_POLICY.selfie_image_days, DEFAULT_POLICY.selfie_video_days, DEFAULT_POLICY.id_document_years, at],
      );
      const [before]: PolicyRow[] = await m.query(
        `SELECT biometric_template_days, selfie_image_days, selfie_video_days, id_document_years, updated_at FROM tenant_retention WHERE tenant_id = $1 AND livemode = $2 FOR UPDATE`,
        [scope.tenantId, scope.livemode],
      );
      const after: RetentionPolicy = { ...pick(before), ...patch };
      await m.query(
        `UPDATE tenant_retention SET biometric_template_days = $3, selfie_image_days = $4, selfie_video_days = $5, id_document_years = $6, updated_at = $7 WHERE tenant_id = $1 AND livemode = $2`,
        [scope.tenantId, scope.livemode, after.biometric_template_days, after.selfie_image_days, after.selfie_video_days, after.id_document_years, at],
      );
      const changes = Object.fromEntries(RETENTION_FIELDS.filter((f) => before[f] !== after[f]).map((f) => [f, { from: before[f], to: after[f] }]));
      await this.audit.append({ tenantId: scope.tenantId, livemode: scope.livemode, action: 'retention.updated', subjectId: scope.tenantId, detail: { changes }, at }, m);
      const record = present(scope, { ...after, updated_at: at });
      await also?.(m, record);
      return record;
    });
  }

  /**
   * A regulated tenant keeps one session's ID documents (images, MRZ text, decision) for up to
   * 10 years from when each was stored. The reason is kept with the extension; the audit entry
   * holds its SHA-256 only (free text may name a person).
   */
  async extendSession(actor: TenantKeyActor, sessionId: string, body: unknown): Promise<RetentionExtension> {
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) throw notFound();
    const { years, reason } = parseExtension(body);
    const at = this.now();
    return this.db.transaction(async (m) => {
      if (!(await SessionReader.lockOfTenant(m, sessionId, actor))) throw notFound();
      const [tenant]: { regulated: boolean }[] = await m.query(`SELECT regulated FROM tenants WHERE id = $1`, [actor.tenantId]);
      if (!tenant?.regulated) throw new DomainError('not_regulated', 'Only regulated tenants may extend a session\'s retention; ask support to mark your tenant regulated');
      const id = `rext_${randomBase62(24)}`;
      await m.query(`INSERT INTO retention_extensions (id, session_id, tenant_id, livemode, id_document_years, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        id,
        sessionId,
        actor.tenantId,
        actor.livemode,
        years,
        reason,
        at,
      ]);
      const [{ n, until }]: { n: string; until: Date | null }[] = await m.query(
        `WITH extended AS (
           UPDATE artifacts SET retain_until = stored_at + make_interval(years => $2::int), retention_extended = true
           WHERE session_id = $1 AND class IN ('id_document_image', 'mrz_text', 'decision_signals', 'registry_record', 'digital_id_presentation') AND purged_at IS NULL
           RETURNING retain_until
         ) SELECT count(*) AS n, max(retain_until) AS until FROM extended`,
        [sessionId, years],
      );
      const reasonSha256 = createHash('sha256').update(reason, 'utf8').digest('hex');
      await this.audit.append(
        { tenantId: actor.tenantId, livemode: actor.livemode, action: 'retention.extended', subjectId: sessionId, detail: { extension_id: id, id_document_years: years, artifacts: Number(n), reason_sha256: reasonSha256, key_id: actor.keyId }, at },
        m,
      );
      return { id, session_id: sessionId, id_document_years: years, retain_until: new Date(until ?? at).toISOString(), artifacts: Number(n), created_at: at.toISOString() };
    });
  }

  /** The operator's flag (CLI `tenant set-regulated`); audited in the tenant's logs and the service log. */
  async setRegulated(tenantId: string, regulated: boolean): Promise<void> {
    await this.db.transaction(async (m) => {
      const found: { id: string }[] = await m.query(`SELECT id FROM tenants WHERE id = $1 FOR UPDATE`, [tenantId]);
      if (found.length === 0) throw notFound('Tenant');
      await m.query(`UPDATE tenants SET regulated = $2 WHERE id = $1`, [tenantId, regulated]);
      await this.audit.append({ tenantId: null, livemode: null, action: 'tenant.regulated_set', subjectId: tenantId, detail: { regulated } }, m);
    });
  }
}

function pick(r: RetentionPolicy): RetentionPolicy {
  return { biometric_template_days: r.biometric_template_days, selfie_image_days: r.selfie_image_days, selfie_video_days: r.selfie_video_days, id_document_years: r.id_document_years };
}

function present(scope: TenantScope, r: RetentionPolicy & { updated_at: Date | string | null }): RetentionRecord {
  return { tenant_id: scope.tenantId, livemode: scope.livemode, ...pick(r), updated_at: r.updated_at === null ? null : new Date(r.updated_at).toISOString() };
}
