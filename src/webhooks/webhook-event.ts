import type { OutboxEventEntity } from '../../entities';

/** The event names an endpoint may subscribe to (spec rule: only these at registration). */
export const SUBSCRIBABLE_EVENTS = ['verification.completed', 'verification.failed', 'verification.manual_review'] as const;

/**
 * Outbox types that leave the service as webhooks. Internal rows (e.g. `session.status_changed`)
 * stay inside. New families announced later (`user.*`, `biometric.purged`) need no change here.
 */
export function isWebhookEventType(type: string): boolean {
  return /^(verification|user|biometric)\./.test(type);
}

/** Events every endpoint of a tenant receives whatever it registered (docs/api-behaviour.md, "Webhooks and events"). */
export const OBLIGATION_EVENTS = ['biometric.purged', 'user.deleted', 'user.purged', 'user.deletion.scheduled'] as const;

export const isObligationEventType = (type: string): boolean => (OBLIGATION_EVENTS as readonly string[]).includes(type);

/** `user.*` and `biometric.*` events are obligations (docs/api-behaviour.md, "Webhooks and events"): every endpoint of the tenant receives them. */
export function endpointReceives(subscribed: readonly string[], type: string): boolean {
  if (!isWebhookEventType(type)) return false;
  return /^(user|biometric)\./.test(type) || subscribed.includes(type);
}

/** The envelope of docs/api-behaviour.md, "Webhooks and events", built from the stored outbox row: the same bytes on every attempt and replay. */
export function envelopeOf(e: Pick<OutboxEventEntity, 'eventId' | 'type' | 'createdAt' | 'livemode' | 'payload'>): string {
  return JSON.stringify({ id: e.eventId, type: e.type, created_at: new Date(e.createdAt).toISOString(), livemode: e.livemode, data: e.payload });
}
