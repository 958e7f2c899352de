import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import { LIST_IDS } from '../src/sanctions';
import type { StoredListVersion } from '../src/sanctions/sanctions-list.repository';
import type { SanctionsListService } from '../src/sanctions/sanctions-list.service';
import type { SanctionsScreeningService } from '../src/sanctions/screening.service';
import { SanctionsList, SanctionsListVersion, ScreenIdentityInput, ScreenIdentityResult } from './sanctions.type';
import { toSanctionsHit } from './session.mapper';

/**
 * Sanctions lists and ad-hoc screening, for a tenant's internal tools (compliance desks): both
 * need a tenant key with the `sanctions:screen` scope. Loads are CLI / refresh-job only.
 */
@Resolver()
export class SanctionsResolver {
  constructor(
    private readonly lists: SanctionsListService,
    private readonly screening: SanctionsScreeningService,
  ) {}

  @Query(() => [SanctionsList], { description: 'Each sanctions list with the version in force and its age (scope sanctions:screen).' })
  async sanctionsLists(@Ctx() ctx: RequestContext): Promise<SanctionsList[]> {
    requireTenantKey(ctx.actor, 'sanctions:screen');
    const { current, history } = await this.lists.overview();
    const now = Date.now();
    return LIST_IDS.map((list) => ({
      list,
      current: current.has(list) ? toVersion(current.get(list)!, now) : null,
      history: (history.get(list) ?? []).map((v) => toVersion(v, now)),
    }));
  }

  @Query(() => ScreenIdentityResult, {
    description: "Screens one person against the loaded lists with the tenant's threshold (scope sanctions:screen). The same hits a T3 session result carries.",
  })
  async screenIdentity(@Arg('input', () => ScreenIdentityInput) input: ScreenIdentityInput, @Ctx() ctx: RequestContext): Promise<ScreenIdentityResult> {
    const actor = requireTenantKey(ctx.actor, 'sanctions:screen');
    const s = await this.screening.screenRequested(actor.tenantId, input);
    return {
      hits: s.hits.map(toSanctionsHit),
      listsUsed: s.lists,
      threshold: s.threshold,
    };
  }
}

function toVersion(v: StoredListVersion, now: number): SanctionsListVersion {
  return {
    version: v.version,
    format: v.format,
    sourceFile: v.sourceFile,
    publishedAt: v.publishedAt,
    entryCount: v.entryCount,
    warningCount: v.warningCount,
    loadedAt: v.loadedAt,
    ageSeconds: Math.max(0, Math.floor((now - v.loadedAt.getTime()) / 1000)),
  };
}
