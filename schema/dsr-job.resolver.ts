import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../src/context';
import { DsrJobService } from '../src/data-rights/dsr-job.service';
import { isDsrKind, isDsrStatus } from '../src/data-rights/dsr-job-status';
import { dsrJobScopeFor } from '../src/data-rights/dsr-job-visibility';
import { DomainError } from '../src/errors';
import { toDsrJobType } from './dsr-job.mapper';
import { DsrJob } from './dsr-job.type';

/** Thin transport over DsrJobService; who sees what is src/data-rights/dsr-job-visibility.ts. */
@Resolver()
export class DsrJobResolver {
  constructor(private readonly jobs: DsrJobService) {}

  @Query(() => [DsrJob], {
    description:
      "Data-subject requests, newest first. The operator credential (service-admin-key) sees every request; a tenant key with dsr:manage sees the delegated requests it initiated, in its mode.",
  })
  async dsrJobs(
    @Arg('kind', () => String, { nullable: true }) kind: string | null,
    @Arg('status', () => String, { nullable: true }) status: string | null,
    @Arg('userId', () => ID, { nullable: true, description: 'Operator only.' }) userId: string | null,
    @Arg('first', () => Int, { defaultValue: 50, description: '1 to 200.' }) first: number,
    @Ctx() ctx: RequestContext,
  ): Promise<DsrJob[]> {
    if (kind !== null && !isDsrKind(kind)) throw new DomainError('invalid_request', `Unknown kind ${kind}`);
    if (status !== null && !isDsrStatus(status)) throw new DomainError('invalid_request', `Unknown status ${status}`);
    if (first < 1 || first > 200) throw new DomainError('invalid_request', 'first must be between 1 and 200');
    const filter = dsrJobScopeFor(ctx, { kind: kind ?? undefined, status: status ?? undefined, userId: userId ?? undefined, first });
    return (await this.jobs.list(filter)).map((j) => toDsrJobType(j, { showUser: ctx.operator === true }));
  }
}
