import { Arg, Ctx, Field, ID, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { FlowEntity } from '../entities';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import { FlowService } from '../src/flows/flow.service';

/** One scope for flows, the same as the policy table's /v1/developer/flows rows (src/auth/authorization-policy.ts). */
const SCOPE = 'flows:manage';

@ObjectType({ description: 'A verification flow template: branding, defaults and the origins that may embed its hosted page. A flow belongs to its tenant in both modes.' })
export class Flow {
  @Field(() => ID) id: string;
  @Field() name: string;
  @Field({ description: 'The default flow, which flowId "default" names.' }) isDefault: boolean;
  @Field({ description: 'The highest tier a session of this flow may ask for.' }) maxTier: string;
  @Field() displayName: string;
  @Field(() => String, { nullable: true }) logoUrl: string | null;
  @Field() primaryColor: string;
  @Field() locale: string;
  @Field(() => String, { nullable: true }) redirectUrl: string | null;
  @Field(() => [String], { description: 'Origins that may frame the hosted page and receive its postMessage events. Live sessions honour https (and loopback) origins only.' })
  allowedOrigins: string[];
  @Field({ description: 'Whether the hosted page offers "Use a digital ID" (a mobile driving licence or EU PID from a wallet, D24). On unless switched off.' })
  digitalIdEnabled: boolean;
  @Field() createdAt: Date;
}

// The two inputs differ only in `name` (required to create); FlowService judges every value, as for the console's forms.
@InputType({ description: 'Fields to change; absent fields stay as they are.' })
export class UpdateFlowInput {
  @Field({ nullable: true, description: "The flow's name in the console (1 to 80 characters)." }) name?: string;
  @Field({ nullable: true, description: 'The highest tier a session of this flow may ask for (T0 to T5).' }) maxTier?: string;
  @Field({ nullable: true, description: 'Shown at the top of the hosted page (1 to 80 characters).' }) displayName?: string;
  @Field(() => String, { nullable: true, description: 'https URL of the logo; null removes it.' }) logoUrl?: string | null;
  @Field({ nullable: true, description: 'Hex colour such as #0b3d91.' }) primaryColor?: string;
  @Field({ nullable: true, description: 'Default locale of new sessions (the page ships en-US and de-DE).' }) locale?: string;
  @Field(() => String, { nullable: true, description: 'http(s) URL the page returns to; null removes it.' }) redirectUrl?: string | null;
  @Field(() => [String], { nullable: true, description: 'Bare origins such as https://shop.example (at most 20); [] clears them.' }) allowedOrigins?: string[];
  @Field({ nullable: true, description: 'Whether the hosted page offers "Use a digital ID" (true or false).' }) digitalIdEnabled?: boolean;
}

@InputType({ description: "A new flow: the default flow's branding and origins, then these fields." })
export class CreateFlowInput extends UpdateFlowInput {
  // The one difference: a new flow needs its name.
  @Field({ description: "The flow's name in the console (1 to 80 characters)." }) declare name: string;
}

const toFlow = (f: FlowEntity): Flow => ({
  id: f.id,
  name: f.name,
  isDefault: f.isDefault,
  maxTier: f.maxTier,
  displayName: f.displayName,
  logoUrl: f.logoUrl,
  primaryColor: f.primaryColor,
  locale: f.locale,
  redirectUrl: f.redirectUrl,
  allowedOrigins: f.allowedOrigins ?? [],
  digitalIdEnabled: f.digitalIdEnabled,
  createdAt: f.createdAt,
});

/** Thin transport over FlowService, which the console's flow forms call too (same rules, same errors). */
@Resolver(() => Flow)
export class FlowResolver {
  constructor(private readonly service: FlowService) {}

  @Query(() => [Flow], { description: "The key's tenant's flows, the default first." })
  async flows(@Ctx() ctx: RequestContext): Promise<Flow[]> {
    return (await this.service.list(requireTenantKey(ctx.actor, SCOPE).tenantId)).map(toFlow);
  }

  @Query(() => Flow, { description: 'One flow of the key\'s tenant; flowId "default" names the default flow. Another tenant\'s flow is not found.' })
  async flow(@Arg('flowId', () => ID) flowId: string, @Ctx() ctx: RequestContext): Promise<Flow> {
    return toFlow(await this.service.get(requireTenantKey(ctx.actor, SCOPE).tenantId, flowId));
  }

  @Mutation(() => Flow, { description: 'Creates a flow of the key\'s tenant, starting from the default flow\'s branding.' })
  async createFlow(@Arg('input', () => CreateFlowInput) input: CreateFlowInput, @Ctx() ctx: RequestContext): Promise<Flow> {
    const actor = requireTenantKey(ctx.actor, SCOPE);
    return toFlow(await this.service.create(actor.tenantId, nullsAbsent(input), { livemode: actor.livemode, who: { key_id: actor.keyId } }));
  }

  @Mutation(() => Flow, { description: 'Changes a flow\'s name, max_tier, branding, embedding origins and whether it offers digital IDs; flowId "default" names the default flow.' })
  async updateFlow(@Arg('flowId', () => ID) flowId: string, @Arg('input', () => UpdateFlowInput) input: UpdateFlowInput, @Ctx() ctx: RequestContext): Promise<Flow> {
    const actor = requireTenantKey(ctx.actor, SCOPE);
    return toFlow(await this.service.update(actor.tenantId, flowId, nullsAbsent(input), { livemode: actor.livemode, who: { key_id: actor.keyId } }));
  }
}

/** A null on a field that cannot be cleared means "not given"; logoUrl and redirectUrl keep null (it removes them). */
function nullsAbsent<T extends UpdateFlowInput | CreateFlowInput>(input: T): T {
  const out = { ...input } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (v === null && k !== 'logoUrl' && k !== 'redirectUrl') delete out[k];
  return out as T;
}
