import { z } from 'zod';
import type { WebhookEndpointEntity } from '../entities';
import { notFound } from '../src/errors';
import { WEBHOOK_ID_PATTERN } from '../src/webhooks/webhook.service';
import { defineRoute, tenantKeyOf, type RouteRecord } from './route-record';

const MANAGE = { kind: 'tenant_key' as const, scope: 'webhooks:manage' as const, owns: null };
const OWN_ENDPOINT = { ...MANAGE, owns: 'webhook' as const };
const TAGS = ['webhooks'] as const;
const webhookId = z.string().regex(WEBHOOK_ID_PATTERN);

function webhookIdParam(id: string | string[] | undefined): string {
  if (typeof id !== 'string' || !WEBHOOK_ID_PATTERN.test(id)) throw notFound('Webhook endpoint');
  return id;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const presentEndpoint = (e: WebhookEndpointEntity) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  livemode: e.livemode,
  status: e.status,
  disabled_reason: e.disabledReason,
  failing_since: iso(e.failingSince),
  created_at: e.createdAt.toISOString(),
});

const dateTime = z.iso.datetime({ offset: true });

/** Webhook registration, listing, deletion and replay (D7): each record calls one WebhookService use case. */
export const WEBHOOK_ROUTES: readonly RouteRecord[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/verify/webhooks',
    guard: MANAGE,
    bucket: 'default',
    body: z.object({ url: z.string(), events: z.array(z.string()) }).strict().meta({ id: 'CreateWebhookRequest' }),
    responses: { 201: { description: 'Registered; the answer alone carries the signing secret', schema: { component: 'CreatedWebhookEndpoint' } } },
    errors: ['BadRequest', 'UnsupportedMediaType'],
    doc: { operationId: 'createWebhookEndpoint', tags: TAGS, summary: 'Register a webhook endpoint' },
    handler: async ({ body, ctx, services }) => {
      const { endpoint: e, signingSecret } = await services.webhooks.create(tenantKeyOf(ctx), body);
      return { status: 201, body: { id: e.id, url: e.url, events: e.events, signing_secret: signingSecret, created_at: e.createdAt.toISOString(), livemode: e.livemode } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/developer/webhooks',
    guard: MANAGE,
    bucket: 'default',
    responses: { 200: { description: 'The endpoints', schema: { listOf: 'WebhookEndpoint' } } },
    doc: { operationId: 'listWebhookEndpoints', tags: TAGS, summary: 'List webhook endpoints' },
    handler: async ({ ctx, services }) => ({ status: 200, body: { object: 'list', data: (await services.webhooks.list(tenantKeyOf(ctx))).map(presentEndpoint) } }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/developer/webhooks/:id',
    guard: OWN_ENDPOINT,
    bucket: 'default',
    params: { id: webhookId },
    responses: { 200: { description: 'Deleted', schema: z.object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) }).strict() } },
    errors: ['NotFound'],
    doc: { operationId: 'deleteWebhookEndpoint', tags: TAGS, summary: 'Delete a webhook endpoint' },
    handler: async ({ req, ctx, services }) => {
      const id = webhookIdParam(req.params.id);
      await services.webhooks.delete(tenantKeyOf(ctx), id);
      return { status: 200, body: { id, object: 'webhook_endpoint', deleted: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/developer/webhooks/:id/replay',
    guard: OWN_ENDPOINT,
    bucket: 'webhooks_replay',
    params: { id: webhookId },
    body: z.object({ event_ids: z.array(z.string()).nullish(), since: dateTime.nullish(), until: dateTime.nullish() }).strict().meta({ id: 'ReplayRequest', description: 'Either event_ids or a since/until window.' }),
    responses: { 202: { description: 'Queued', schema: z.object({ queued: z.int().min(0) }).strict() } },
    errors: ['BadRequest', 'NotFound', 'Conflict', 'UnsupportedMediaType'],
    doc: { operationId: 'replayWebhookEvents', tags: TAGS, summary: 'Send events again to an endpoint' },
    handler: async ({ req, body, ctx, services }) => {
      const at = (v: string | null | undefined) => (v == null ? null : new Date(v));
      const queued = await services.webhooks.replay(tenantKeyOf(ctx), webhookIdParam(req.params.id), { eventIds: body.event_ids ?? null, since: at(body.since), until: at(body.until) });
      return { status: 202, body: { queued } };
    },
  }),
];
