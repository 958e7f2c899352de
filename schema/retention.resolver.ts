import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import type { RetentionRecord, RetentionService } from '../src/retention/retention.service';
import { encodeRunCursor, RetentionRunService } from '../src/retention/retention-run.service';
import { Retention, RetentionExtension, RetentionInput, RetentionRun } from './retention.type';

/** One scope for retention, the same as the policy table's REST rows (src/auth/authorization-policy.ts). */
const SCOPE = 'retention:manage';

const toRetention = (r: RetentionRecord): Retention => ({
  tenantId: r.tenant_id,
  livemode: r.livemode,
  biometricTemplateDays: r.biometric_template_days,
  selfieImageDays: r.selfie_image_days,
  selfieVideoDays: r.selfie_video_days,
  idDocumentYears: r.id_document_years,
  updatedAt: r.updated_at ? new Date(r.updated_at) : null,
});

/** Thin transport over RetentionService and RetentionRunService. */
@Resolver()
export class RetentionResolver {
  constructor(
    private readonly policies: RetentionService,
    private readonly runs: RetentionRunService,
  ) {}

  @Query(() => Retention, { description: "This tenant's retention in the key's mode; another tenant's id is not found." })
  async retention(@Arg('tenantId', () => ID) tenantId: string, @Ctx() ctx: RequestContext): Promise<Retention> {
    return toRetention(await this.policies.get(requireTenantKey(ctx.actor, SCOPE), tenantId));
  }

  @Mutation(() => Retention, { description: 'Changes some of the four settings. Tightening applies to new artifacts now and to open sessions\' stored ones within 24 h; loosening to future uploads only.' })
  async updateRetention(@Arg('tenantId', () => ID) tenantId: string, @Arg('input', () => RetentionInput) input: RetentionInput, @Ctx() ctx: RequestContext): Promise<Retention> {
    const body = Object.fromEntries(
      (
        [
          ['biometric_template_days', input.biometricTemplateDays],
          ['selfie_image_days', input.selfieImageDays],
          ['selfie_video_days', input.selfieVideoDays],
          ['id_document_years', input.idDocumentYears],
        ] as const
      ).filter(([, v]) => v !== undefined && v !== null), // null: not given (REST refuses a null by name before it gets here)
    );
    return toRetention(await this.policies.update(requireTenantKey(ctx.actor, SCOPE), tenantId, body));
  }

  @Mutation(() => RetentionExtension, { description: "Regulated tenants only: keeps this session's ID documents up to 10 years from their storage. Audited; the reason is kept, its hash logged." })
  async extendSessionRetention(
    @Arg('sessionId', () => ID) sessionId: string,
    @Arg('idDocumentYears', () => Int) idDocumentYears: number,
    @Arg('reason', () => String) reason: string,
    @Ctx() ctx: RequestContext,
  ): Promise<RetentionExtension> {
    const e = await this.policies.extendSession(requireTenantKey(ctx.actor, 'sessions:write'), sessionId, { id_document_years: idDocumentYears, reason });
    return { id: e.id, sessionId: e.session_id, idDocumentYears: e.id_document_years, retainUntil: new Date(e.retain_until), artifacts: e.artifacts, createdAt: new Date(e.created_at) };
  }

  @Query(() => [RetentionRun], {
    description: 'Retention runs, newest first. A tenant key (retention:manage) sees its own counts in its mode; `service: true` with the operator credential the totals.',
  })
  async retentionRuns(
    @Arg('first', () => Int, { defaultValue: 20 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('service', () => Boolean, { defaultValue: false }) service: boolean,
    @Ctx() ctx: RequestContext,
  ): Promise<RetentionRun[]> {
    if (service && !ctx.operator) throw new DomainError('unauthorized', 'The service totals need the operator credential (service-admin-key header)');
    const { runs } = await this.runs.runs(service ? 'service' : requireTenantKey(ctx.actor, SCOPE), first, after);
    return runs.map((r) => ({ ...r, cursor: encodeRunCursor(r) }));
  }
}
