import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { RateLimitOverrides } from '../src/rate-limit/rate-limit-overrides';

@ObjectType({ description: "One tenant's limit for one rate-limit bucket, replacing the default of the bucket table." })
export class RateLimitOverride {
  @Field(() => ID) tenantId: string;
  @Field() bucket: string;
  @Field(() => Int, { description: 'Requests per sliding 60 s window.' }) limit: number;
  @Field() updatedAt: Date;
}

/** Operator-only: enterprise raises go through support, so no tenant key can call this. */
@Resolver()
export class RateLimitResolver {
  constructor(private readonly overrides: RateLimitOverrides) {}

  @Mutation(() => RateLimitOverride, {
    nullable: true,
    description:
      'Operator only (header service-admin-key = ADMIN_API_KEY). Sets a tenant\'s limit for one bucket; limit null removes the override. Live on every instance within a second.',
  })
  async setRateLimitOverride(
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('bucket', () => String) bucket: string,
    @Arg('limit', () => Int, { nullable: true }) limit: number | null | undefined,
    @Ctx() ctx: RequestContext,
  ): Promise<RateLimitOverride | null> {
    if (!ctx.operator) throw new DomainError('unauthorized', 'This mutation needs the operator credential (service-admin-key header)');
    return this.overrides.set(tenantId, bucket, limit ?? null);
  }
}
