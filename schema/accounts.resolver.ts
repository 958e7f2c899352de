import { Arg, Ctx, Field, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import type { OidcClients } from '../src/oidc/oidc-clients';
import type { MeService } from '../src/users/me.service';
import type { UserTokenPolicy } from '../src/auth/user-token.policy';

@ObjectType({ description: "What live verifications established about a user (scope `verification`'s claim); test-mode sessions never change it." })
export class ServiceVerificationType {
  @Field(() => [String]) badges: string[];
  @Field(() => String, { nullable: true }) tier: string | null;
  @Field(() => Date, { nullable: true }) verifiedAt: Date | null;
}

@ObjectType({
  description:
    "The signed-in end user (a user access token for /v1); GET /v1/me in GraphQL. A tenant's client sees its pairwise subject and the claims of the scopes it was granted; the account portal sees the whole account.",
})
export class Viewer {
  @Field({ description: "The token's subject: the tenant's pairwise subject of the user (the portal's own for the account portal)." }) sub: string;
  @Field(() => String, { nullable: true, description: 'The account id (usr_...): the account portal only, null for a tenant\'s client.' }) id: string | null;
  @Field(() => String, { nullable: true, description: 'With scope email; null otherwise.' }) email: string | null;
  @Field(() => Boolean, { nullable: true, description: 'With scope email; null otherwise.' }) emailVerified: boolean | null;
  @Field(() => String, { nullable: true, description: 'With scope profile; null otherwise.' }) displayName: string | null;
  @Field(() => String, { nullable: true, description: 'With scope profile; null otherwise.' }) handle: string | null;
  @Field(() => ServiceVerificationType, { nullable: true, description: 'With scope verification; null otherwise.' }) serviceVerification: ServiceVerificationType | null;
  @Field(() => [String], { description: "Ids of the sessions bound to this user, newest first: at the token's tenant only, or every tenant's for the account portal." }) sessionIds: string[];
}

@ObjectType({ description: "A tenant's OIDC client in the key's mode (docs/accounts-and-oidc.md)." })
export class OidcClient {
  @Field() clientId: string;
  @Field(() => [String]) redirectUris: string[];
  @Field(() => [String]) postLogoutRedirectUris: string[];
}

@InputType({ description: 'Redirect URIs to add or remove (live ones must be https).' })
export class UpdateOidcRedirectUrisInput {
  @Field(() => [String], { nullable: true }) add?: string[];
  @Field(() => [String], { nullable: true }) remove?: string[];
  @Field(() => [String], { nullable: true }) addPostLogout?: string[];
  @Field(() => [String], { nullable: true }) removePostLogout?: string[];
}

@Resolver()
export class AccountsResolver {
  constructor(
    private readonly me: MeService,
    private readonly clients: OidcClients,
    private readonly policy: UserTokenPolicy,
  ) {}

  @Query(() => Viewer, {
    description: "The end user of a user access token with scope account (a tenant's client sees its own sessions only); a tenant key is refused (user_token_required).",
  })
  async viewer(@Ctx() ctx: RequestContext): Promise<Viewer> {
    const v = await this.me.view(this.policy.authorize(ctx.actor, 'read_account'));
    const sv = v.service_verification;
    return {
      sub: v.sub,
      id: v.id ?? null,
      email: v.email ?? null,
      emailVerified: v.email_verified ?? null,
      displayName: v.profile?.display_name ?? null,
      handle: v.profile?.handle ?? null,
      serviceVerification: sv ? { badges: sv.badges, tier: sv.tier, verifiedAt: sv.verified_at ? new Date(sv.verified_at) : null } : null,
      sessionIds: v.sessions.map((s) => s.id),
    };
  }

  @Mutation(() => OidcClient, { description: "Adds or removes the redirect URIs of the tenant's OIDC client in the key's mode (scope keys:manage)." })
  async updateOidcRedirectUris(@Arg('input', () => UpdateOidcRedirectUrisInput) input: UpdateOidcRedirectUrisInput, @Ctx() ctx: RequestContext): Promise<OidcClient> {
    const actor = requireTenantKey(ctx.actor, 'keys:manage');
    return this.clients.updateRedirectUris(actor.tenantId, actor.livemode ? 'live' : 'test', input);
  }
}
