import type { AuditLogEntity, WebhookAttemptEntity, WebhookEndpointEntity } from '../entities';
import { encodeAuditCursor } from '../src/audit/audit-log.query';
import type { AuditEntry, WebhookAttempt, WebhookEndpoint } from './webhook.type';

export function toWebhookEndpoint(e: WebhookEndpointEntity): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    livemode: e.livemode,
    status: e.status,
    disabledReason: e.disabledReason,
    previousSecretExpiresAt: e.previousSecretCiphertext ? e.previousSecretExpiresAt : null,
    failingSince: e.failingSince,
    createdAt: e.createdAt,
  };
}

export function toWebhookAttempt(a: WebhookAttemptEntity): WebhookAttempt {
  return {
    id: a.publicId,
    deliveryId: a.deliveryId,
    endpointId: a.endpointId,
    eventId: a.eventId,
    attempt: a.attempt,
    startedAt: a.startedAt,
    durationMs: a.durationMs,
    statusCode: a.statusCode,
    succeeded: a.succeeded,
    error: a.error,
    responseBody: a.responseBody,
    nextRetryAt: a.nextRetryAt,
  };
}

export function toAuditEntry(a: AuditLogEntity): AuditEntry {
  return { id: a.publicId, action: a.action, subjectId: a.subjectId, detail: a.detail, createdAt: a.createdAt, sequence: Number(a.logSeq), prevHash: a.prevHash, hash: a.hash, cursor: encodeAuditCursor(a) };
}
