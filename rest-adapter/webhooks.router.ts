import { Router } from 'express';
import { DomainError, notFound } from '../src/errors';
import { jsonBody } from '../http/json-body';
import { WEBHOOK_ID_PATTERN } from '../src/webhooks/webhook.service';
import { RestOperations, type WebhookEndpointData } from './operations';
import { JsonObject, objectWithFields, optionalString, requiredString } from './request-validation';
import { restRoute } from './rest-route';


/** Webhook registration and replay: validate, run the GraphQL operation, present snake_case. */
export function webhooksRouter(ops: RestOperations, router: Router = Router()): Router {
  router.post(
    '/verify/webhooks',
    jsonBody,
    restRoute(async (req, ctx) => {
      const body = objectWithFields(req.body, ['url', 'events']);
      const url = requiredString(body, 'url');
      const events = body.events;
      if (!Array.isArray(events) || events.some((e) => typeof e !== 'string')) throw new DomainError('invalid_request', 'events must be an array of event names');
      const created = await ops.run('createWebhookEndpoint', { input: { url, events } }, ctx);
      return {
        status: 201,
        body: { id: created.id, url: created.url, events: created.events, signing_secret: created.signingSecret, created_at: created.createdAt, livemode: created.livemode },
      };
    }),
  );

  // Listing and deleting endpoints: the REST twins of the GraphQL webhookEndpoints and deleteWebhookEndpoint.
  router.get(
    '/developer/webhooks',
    restRoute(async (_req, ctx) => {
      const endpoints = await ops.run('webhookEndpoints', {}, ctx);
      return { status: 200, body: { object: 'list', data: endpoints.map(presentEndpoint) } };
    }),
  );

  router.delete(
    '/developer/webhooks/:id',
    restRoute(async (req, ctx) => {
      const id = webhookIdParam(req.params.id);
      await ops.run('deleteWebhookEndpoint', { id }, ctx);
      return { status: 200, body: { id, object: 'webhook_endpoint', deleted: true } };
    }),
  );

  router.post(
    '/developer/webhooks/:id/replay',
    jsonBody,
    restRoute(async (req, ctx) => {
      const id = webhookIdParam(req.params.id);
      const body = objectWithFields(req.body, ['event_ids', 'since', 'until']);
      const input = { eventIds: eventIds(body), since: timestamp(body, 'since'), until: timestamp(body, 'until') };
      const { queued } = await ops.run('replayWebhookEvents', { id, input }, ctx);
      return { status: 202, body: { queued } };
    }),
  );

  return router;
}

function webhookIdParam(id: string | string[] | undefined): string {
  if (typeof id !== 'string' || !WEBHOOK_ID_PATTERN.test(id)) throw notFound('Webhook endpoint');
  return id;
}

function presentEndpoint(e: WebhookEndpointData): Record<string, unknown> {
  return { id: e.id, url: e.url, events: e.events, livemode: e.livemode, status: e.status, disabled_reason: e.disabledReason, failing_since: e.failingSince, created_at: e.createdAt };
}

function eventIds(body: JsonObject): string[] | null {
  const v = body.event_ids;
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.some((e) => typeof e !== 'string')) throw new DomainError('invalid_request', 'event_ids must be an array of event ids');
  return v as string[];
}

function timestamp(body: JsonObject, field: string): string | null {
  const v = optionalString(body, field);
  if (v === undefined) return null;
  if (Number.isNaN(Date.parse(v))) throw new DomainError('invalid_request', `${field} must be an ISO 8601 date-time`);
  return new Date(v).toISOString();
}
