import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { requireTenantKey } from '../src/auth/auth.service';
import type { RequestContext } from '../src/context';
import { WebhookService } from '../src/webhooks/webhook.service';
import { CreateWebhookEndpointInput, ReplayWebhookEventsInput, RotateWebhookSecretInput } from './webhook.inputs';
import { toWebhookAttempt, toWebhookEndpoint } from './webhook.mapper';
import { WebhookAttempt, WebhookEndpoint, WebhookEndpointWithSecret, WebhookReplayResult } from './webhook.type';

const SCOPE = 'webhooks:manage';

/** Thin transport over WebhookService; every field needs the webhooks:manage scope. */
@Resolver()
export class WebhookResolver {
  constructor(private readonly webhooks: WebhookService) {}

  @Query(() => [WebhookEndpoint], { description: "This key's tenant and mode's endpoints, newest first." })
  async webhookEndpoints(@Ctx() ctx: RequestContext): Promise<WebhookEndpoint[]> {
    const actor = requireTenantKey(ctx.actor, SCOPE);
    return (await this.webhooks.list(actor)).map(toWebhookEndpoint);
  }

  @Query(() => [WebhookAttempt], { description: 'The delivery log, newest first: attempts to one endpoint, of one event, or both.' })
  async webhookAttempts(
    @Arg('endpointId', () => ID, { nullable: true }) endpointId: string | null,
    @Arg('eventId', () => ID, { nullable: true }) eventId: string | null,
    @Arg('first', () => Int, { defaultValue: 20 }) first: number,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookAttempt[]> {
    const actor = requireTenantKey(ctx.actor, SCOPE);
    return (await this.webhooks.attempts(actor, { endpointId, eventId, first })).map(toWebhookAttempt);
  }

  @Mutation(() => WebhookEndpointWithSecret, { description: 'Registers a receiver; the response alone carries its signingSecret.' })
  async createWebhookEndpoint(@Arg('input', () => CreateWebhookEndpointInput) input: CreateWebhookEndpointInput, @Ctx() ctx: RequestContext): Promise<WebhookEndpointWithSecret> {
    const actor = requireTenantKey(ctx.actor, SCOPE);
    const { endpoint, signingSecret } = await this.webhooks.create(actor, input);
    return { ...toWebhookEndpoint(endpoint), signingSecret };
  }

  @Mutation(() => WebhookEndpoint, { description: 'Stops deliveries to the endpoint until it is enabled again.' })
  async disableWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<WebhookEndpoint> {
    return toWebhookEndpoint(await this.webhooks.disable(requireTenantKey(ctx.actor, SCOPE), id));
  }

  @Mutation(() => WebhookEndpoint, { description: 'Enables a disabled endpoint (its URL is checked again).' })
  async enableWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<WebhookEndpoint> {
    return toWebhookEndpoint(await this.webhooks.enable(requireTenantKey(ctx.actor, SCOPE), id));
  }

  @Mutation(() => Boolean, { description: 'Deletes the endpoint; nothing more is sent to it.' })
  async deleteWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<boolean> {
    await this.webhooks.delete(requireTenantKey(ctx.actor, SCOPE), id);
    return true;
  }

  @Mutation(() => WebhookEndpointWithSecret, { description: 'A new signing secret, shown once; the old one also signs during the overlap.' })
  async rotateWebhookSecret(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => RotateWebhookSecretInput, { nullable: true }) input: RotateWebhookSecretInput | null,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookEndpointWithSecret> {
    const actor = requireTenantKey(ctx.actor, SCOPE);
    const { endpoint, signingSecret } = await this.webhooks.rotateSecret(actor, id, input?.overlapSeconds ?? undefined);
    return { ...toWebhookEndpoint(endpoint), signingSecret };
  }

  @Mutation(() => WebhookReplayResult, { description: 'Sends events again to this endpoint, signed afresh (REST: POST /v1/developer/webhooks/{id}/replay).' })
  async replayWebhookEvents(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ReplayWebhookEventsInput) input: ReplayWebhookEventsInput,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookReplayResult> {
    const actor = requireTenantKey(ctx.actor, SCOPE);
    return { queued: await this.webhooks.replay(actor, id, input) };
  }
}
