import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { AuditLogQuery } from '../src/audit/audit-log.query';
import { toAuditEntry } from './webhook.mapper';
import { AuditEntry } from './webhook.type';

/** Thin transport over AuditLogQuery: a tenant key reads its own log, the operator credential the service log. */
@Resolver()
export class AuditResolver {
  constructor(private readonly query: AuditLogQuery) {}

  @Query(() => [AuditEntry], {
    description:
      "Newest first. A tenant key (webhooks:manage) reads its tenant's log in its mode; `service: true` with the operator credential (service-admin-key) reads the service log. Page with `after` = the last entry's cursor; `action` ending in '.' matches a prefix.",
  })
  async auditLog(
    @Arg('first', () => Int, { defaultValue: 20 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('action', () => String, { nullable: true }) action: string | null,
    @Arg('subjectId', () => ID, { nullable: true }) subjectId: string | null,
    @Arg('since', () => Date, { nullable: true }) since: Date | null,
    @Arg('until', () => Date, { nullable: true }) until: Date | null,
    @Arg('service', () => Boolean, { defaultValue: false }) service: boolean,
    @Ctx() ctx: RequestContext,
  ): Promise<AuditEntry[]> {
    let scope: Parameters<AuditLogQuery['page']>[0];
    if (service) {
      if (!ctx.operator) throw new DomainError('unauthorized', 'The service log needs the operator credential (service-admin-key header)');
      scope = 'service';
    } else scope = requireTenantKey(ctx.actor, 'webhooks:manage');
    const page = await this.query.page(scope, first, after, { action, subjectId, since, until });
    return page.entries.map(toAuditEntry);
  }
}
