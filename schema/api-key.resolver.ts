import { Arg, Ctx, Field, ID, Mutation, ObjectType, Resolver } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import { TenantService } from '../src/tenants/tenant.service';

@ObjectType({ description: 'A new secret key. The key is shown this once and stored only as a hash.' })
export class IssuedApiKey {
  @Field(() => ID) id: string;
  @Field() key: string;
  @Field() livemode: boolean;
  @Field(() => [String]) scopes: string[];
}

/** Key issuance for a tenant's own keys (scope keys:manage), in the calling key's mode only. */
@Resolver()
export class ApiKeyResolver {
  constructor(private readonly tenants: TenantService) {}

  @Mutation(() => IssuedApiKey, {
    description: "Issues a key for the caller's tenant and mode, with scopes the calling key holds itself; no scopes means all of the calling key's scopes.",
  })
  async createApiKey(@Arg('scopes', () => [String], { nullable: true }) scopes: string[] | undefined, @Ctx() ctx: RequestContext): Promise<IssuedApiKey> {
    const actor = requireTenantKey(ctx.actor, 'keys:manage');
    return this.tenants.createKeyFor(actor, scopes ?? []);
  }

  @Mutation(() => Boolean, { description: "Revokes one of the tenant's keys of the calling key's mode; it is refused at once on every instance." })
  async revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<boolean> {
    const actor = requireTenantKey(ctx.actor, 'keys:manage');
    await this.tenants.revokeKey(id, { tenantId: actor.tenantId, livemode: actor.livemode });
    return true;
  }
}
