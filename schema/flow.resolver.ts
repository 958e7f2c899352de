import { Arg, Ctx, Field, ID, InputType, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { FlowEntity } from '../entities';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import { FlowService } from '../src/flows/flow.service';

@ObjectType({ description: 'A verification flow template: branding, defaults and the origins that may embed its hosted page.' })
export class Flow {
  @Field(() => ID) id: string;
  @Field() name: string;
  @Field() maxTier: string;
  @Field() displayName: string;
  @Field(() => String, { nullable: true }) logoUrl: string | null;
  @Field() primaryColor: string;
  @Field() locale: string;
  @Field(() => String, { nullable: true }) redirectUrl: string | null;
  @Field(() => [String], { description: 'Origins that may frame the hosted page and receive its postMessage events. Live sessions honour https (and loopback) origins only.' })
  allowedOrigins: string[];
}

@InputType({ description: 'Fields to change; absent fields stay as they are.' })
export class UpdateFlowInput {
  @Field({ nullable: true, description: 'Shown at the top of the hosted page (1 to 80 characters).' }) displayName?: string;
  @Field(() => String, { nullable: true, description: 'https URL of the logo; null removes it.' }) logoUrl?: string | null;
  @Field({ nullable: true, description: 'Hex colour such as #0b3d91.' }) primaryColor?: string;
  @Field({ nullable: true, description: 'Default locale of new sessions (the page ships en-US and de-DE).' }) locale?: string;
  @Field(() => String, { nullable: true }) redirectUrl?: string | null;
  @Field(() => [String], { nullable: true, description: 'Bare origins such as https://shop.example (at most 20); [] clears them.' }) allowedOrigins?: string[];
}

const toFlow = (f: FlowEntity): Flow => ({
  id: f.id,
  name: f.name,
  maxTier: f.maxTier,
  displayName: f.displayName,
  logoUrl: f.logoUrl,
  primaryColor: f.primaryColor,
  locale: f.locale,
  redirectUrl: f.redirectUrl,
  allowedOrigins: f.allowedOrigins ?? [],
});

/** Thin transport over FlowService (scope sessions:write: a flow shapes the sessions the key creates). */
@Resolver(() => Flow)
export class FlowResolver {
  constructor(private readonly flows: FlowService) {}

  @Mutation(() => Flow, { description: 'Changes a flow\'s branding and embedding origins; flowId "default" names the default flow.' })
  async updateFlow(@Arg('flowId', () => ID) flowId: string, @Arg('input', () => UpdateFlowInput) input: UpdateFlowInput, @Ctx() ctx: RequestContext): Promise<Flow> {
    const actor = requireTenantKey(ctx.actor, 'sessions:write');
    return toFlow(await this.flows.update(actor.tenantId, flowId, input));
  }
}
