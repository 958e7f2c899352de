import { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { AuditLogEntity, OutboxEventEntity, WebhookAttemptEntity, WebhookDeliveryEntity, WebhookEndpointEntity } from '../../entities';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import { DISABLE_AFTER_FAILING_MS, parseRetryAfter, retryDelayMs } from './retry.schedule';
import { resolveWebhookTarget, Resolver } from './ssrf.guard';
import { DeliverWebhookData, WebhookDispatcher } from './webhook.dispatcher';
import { envelopeOf } from './webhook-event';
import { SendRequest, SendResult, sendWebhook } from './webhook.sender';
import { SIGNATURE_HEADER, signatureHeader } from './webhook.signer';
import type { WebhookSecretBox } from './webhook-secret.box';

/** Stored from each receiver response; the rest is dropped. */
export const LOG_BODY_BYTES = 1024;

export type DeliverWebhookOptions = {
  timeoutMs: number;
  retryScale: number;
  resolver?: Resolver;
  send?: (req: SendRequest) => Promise<SendResult>;
  now?: () => Date;
  random?: () => number;
};

/**
 * One attempt of one delivery. The job of attempt n acts only while the delivery has n - 1
 * attempts recorded, and records its own with a conditional update, so a job that pg-boss runs
 * again after a crash sends again (at-least-once) but never records or schedules twice.
 */
export class DeliverWebhookJob {
  constructor(
    private readonly db: DataSource,
    private readonly box: WebhookSecretBox,
    private readonly dispatcher: WebhookDispatcher,
    private readonly logger: Logger,
    private readonly opts: DeliverWebhookOptions,
  ) {}

  get queue(): string {
    return this.dispatcher.queue;
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  async run({ deliveryId, attempt }: DeliverWebhookData): Promise<void> {
    const loaded = await this.load(deliveryId);
    if (!loaded) return;
    const { delivery, endpoint, event } = loaded;
    if (delivery.status !== 'pending' || delivery.attempts >= attempt) return;
    if (!event || endpoint.deletedAt || endpoint.status !== 'enabled') {
      await this.db
        .createQueryBuilder()
        .update(WebhookDeliveryEntity)
        .set({ status: 'skipped', nextAttemptAt: null, updatedAt: this.now() })
        .where('id = :id AND status = :pending', { id: deliveryId, pending: 'pending' })
        .execute();
      return;
    }

    const startedAt = this.now();
    const result = await this.attempt(endpoint, event, attempt);
    // The request has gone out: a passing database hiccup should not make pg-boss send it again.
    for (let tries = 1; ; tries++) {
      try {
        await this.record(delivery, endpoint, attempt, startedAt, result);
        return;
      } catch (err) {
        if (tries >= 3) throw err;
        this.logger.warn({ err, deliveryId, attempt }, 'recording a webhook attempt failed; retrying');
        await new Promise((r) => setTimeout(r, 200 * tries));
      }
    }
  }

  /** The delivery with its endpoint and event, in one round trip (this runs for every attempt). */
  private async load(deliveryId: string): Promise<{ delivery: WebhookDeliveryEntity; endpoint: WebhookEndpointEntity; event: OutboxEventEntity | null } | null> {
    const qb = this.db
      .getRepository(WebhookDeliveryEntity)
      .createQueryBuilder('d')
      .innerJoinAndMapOne('d.endpoint', WebhookEndpointEntity, 'ep', 'ep.id = d.endpoint_id')
      .leftJoinAndMapOne('d.event', OutboxEventEntity, 'ev', 'ev.event_id = d.event_id')
      .where('d.id = :id', { id: deliveryId });
    const row = (await qb.getOne()) as (WebhookDeliveryEntity & { endpoint?: WebhookEndpointEntity; event?: OutboxEventEntity }) | null;
    if (!row?.endpoint) return null;
    return { delivery: row, endpoint: row.endpoint, event: row.event ?? null };
  }

  private async attempt(endpoint: WebhookEndpointEntity, event: OutboxEventEntity, attempt: number): Promise<SendResult> {
    let target;
    try {
      // Checked again at every attempt: the name may resolve elsewhere now than at registration.
      target = await resolveWebhookTarget(endpoint.url, endpoint.livemode, this.opts.resolver);
    } catch (err) {
      const message = err instanceof DomainError ? err.message : 'url check failed';
      return { statusCode: null, headers: {}, body: '', durationMs: 0, error: `refused: ${message}` };
    }
    const body = envelopeOf(event);
    const t = Math.floor(this.now().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      [SIGNATURE_HEADER]: signatureHeader(this.secretsOf(endpoint), t, body),
      'Service-Event-Id': event.eventId,
      'Service-Webhook-Attempt': String(attempt),
    };
    return (this.opts.send ?? sendWebhook)({ target, body, headers, timeoutMs: this.opts.timeoutMs, maxBodyBytes: LOG_BODY_BYTES });
  }

  /** The current secret, then the previous one while its rotation overlap lasts. */
  private secretsOf(endpoint: WebhookEndpointEntity): string[] {
    const secrets = [this.box.open(endpoint.secretCiphertext)];
    if (endpoint.previousSecretCiphertext && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > this.now()) {
      secrets.push(this.box.open(endpoint.previousSecretCiphertext));
    }
    return secrets;
  }

  private async record(delivery: WebhookDeliveryEntity, endpoint: WebhookEndpointEntity, attempt: number, startedAt: Date, r: SendResult): Promise<void> {
    const succeeded = r.error === null && r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const gone = r.statusCode === 410;
    const now = this.now();
    const delay = succeeded || gone ? null : retryDelayMs(attempt, { scale: this.opts.retryScale, retryAfterMs: parseRetryAfter(r.headers['retry-after']), random: this.opts.random });
    const nextRetryAt = delay === null ? null : new Date(now.getTime() + delay);
    const error = r.error ?? (succeeded ? null : r.statusCode !== null && r.statusCode >= 300 && r.statusCode < 400 ? `HTTP ${r.statusCode} (redirects are not followed)` : `HTTP ${r.statusCode}`);

    if (succeeded && !endpoint.failingSince) {
      // The common case in one statement: claim the attempt and log it, or do nothing if already logged.
      await this.db.query(
        `WITH d AS (
           UPDATE webhook_deliveries SET attempts = $2, status = 'succeeded', next_attempt_at = NULL, updated_at = $3
            WHERE id = $1 AND attempts = $2 - 1 AND status = 'pending' RETURNING id, endpoint_id, tenant_id, event_id)
         INSERT INTO webhook_attempts (delivery_id, endpoint_id, tenant_id, event_id, attempt, started_at, duration_ms, status_code, succeeded, error, response_body, next_retry_at)
         SELECT id, endpoint_id, tenant_id, event_id, $2, $4, $5, $6, true, NULL, $7, NULL FROM d`,
        [delivery.id, attempt, now, startedAt, r.durationMs, r.statusCode, r.body ? r.body.slice(0, LOG_BODY_BYTES) : null],
      );
      return;
    }
    await this.db.transaction(async (m) => {
      const claimed = await m
        .createQueryBuilder()
        .update(WebhookDeliveryEntity)
        .set({
          attempts: attempt,
          status: succeeded ? 'succeeded' : nextRetryAt ? 'pending' : 'failed',
          nextAttemptAt: nextRetryAt,
          updatedAt: now,
        })
        .where('id = :id AND attempts = :prev AND status = :pending', { id: delivery.id, prev: attempt - 1, pending: 'pending' })
        .execute();
      if (!claimed.affected) return; // another run of this job recorded the attempt first
      await m.insert(WebhookAttemptEntity, {
        deliveryId: delivery.id,
        endpointId: endpoint.id,
        tenantId: endpoint.tenantId,
        eventId: delivery.eventId,
        attempt,
        startedAt,
        durationMs: r.durationMs,
        statusCode: r.statusCode,
        succeeded,
        error,
        responseBody: r.body ? r.body.slice(0, LOG_BODY_BYTES) : null,
        nextRetryAt,
      } as QueryDeepPartialEntity<WebhookAttemptEntity>);
      if (nextRetryAt) await this.dispatcher.scheduleAttempt(m, delivery.id, attempt + 1, nextRetryAt);
      await this.updateEndpointHealth(m, endpoint, succeeded, gone, now);
    });
    if (!succeeded) this.logger.info({ deliveryId: delivery.id, endpointId: endpoint.id, attempt, statusCode: r.statusCode, error, nextRetryAt }, 'webhook attempt failed');
  }

  private async updateEndpointHealth(m: EntityManager, endpoint: WebhookEndpointEntity, succeeded: boolean, gone: boolean, now: Date): Promise<void> {
    const repo = m.getRepository(WebhookEndpointEntity);
    if (succeeded) {
      if (endpoint.failingSince) await repo.createQueryBuilder().update().set({ failingSince: null }).where('id = :id', { id: endpoint.id }).execute();
      return;
    }
    const failingSince = endpoint.failingSince ?? now;
    if (!endpoint.failingSince) {
      await repo.createQueryBuilder().update().set({ failingSince: now }).where('id = :id AND failing_since IS NULL', { id: endpoint.id }).execute();
    }
    const failingTooLong = now.getTime() - new Date(failingSince).getTime() >= DISABLE_AFTER_FAILING_MS * this.opts.retryScale;
    if (!gone && !failingTooLong) return;
    const reason = gone ? 'receiver_gone' : 'failing_for_3_days';
    const disabled = await repo
      .createQueryBuilder()
      .update()
      .set({ status: 'disabled', disabledReason: reason, updatedAt: now })
      .where('id = :id AND status = :enabled', { id: endpoint.id, enabled: 'enabled' })
      .execute();
    if (!disabled.affected) return;
    await m.insert(AuditLogEntity, {
      tenantId: endpoint.tenantId,
      livemode: endpoint.livemode,
      action: 'webhook_endpoint.disabled',
      subjectId: endpoint.id,
      detail: {
        reason,
        message: gone ? 'The receiver answered 410 Gone' : 'Every delivery attempt failed for 3 days',
        url: endpoint.url,
        failing_since: new Date(failingSince).toISOString(),
      },
      createdAt: now,
    } as QueryDeepPartialEntity<AuditLogEntity>);
    this.logger.warn({ endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
  }
}
