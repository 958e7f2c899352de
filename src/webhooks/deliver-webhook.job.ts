import { DataSource, EntityManager } from 'typeorm';
import { NO_METRICS, type Metrics } from '../metrics/metrics';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OutboxEventEntity, WebhookAttemptEntity, WebhookDeliveryEntity, WebhookEndpointEntity } from '../../entities';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import type { AuditLogService } from '../audit/audit-log.service';
import { parseRetryAfter } from '../net/retry-after';
import { DISABLE_AFTER_FAILING_MS, retryDelayMs } from './retry.schedule';
import { resolveWebhookTarget, Resolver } from './ssrf.guard';
import { DeliverWebhookData, WebhookDispatcher } from './webhook.dispatcher';
import { envelopeOf } from './webhook-event';
import { SendRequest, SendResult, sendWebhook } from './webhook.sender';
import { SIGNATURE_HEADER, signatureHeader } from './webhook.signer';
import type { WebhookSecretBox } from './webhook-secret.box';
import { toStorableText } from '../validation/postgres-text';
import type { Clock } from '../clock';

/** Stored from each receiver response; the rest is dropped. */
export const LOG_BODY_BYTES = 1024;

export type DeliverWebhookOptions = {
  timeoutMs: number;
  retryScale: number;
  resolver?: Resolver;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS (docs/security.md). */
  allowPrivateTargets?: boolean;
  send?: (req: SendRequest) => Promise<SendResult>;
  now?: Clock;
  random?: () => number;
};

type LoadedDelivery = Pick<WebhookDeliveryEntity, 'id' | 'status' | 'attempts' | 'eventId'>;
type LoadedEndpoint = Pick<
  WebhookEndpointEntity,
  'id' | 'tenantId' | 'livemode' | 'url' | 'status' | 'deletedAt' | 'secretCiphertext' | 'previousSecretCiphertext' | 'previousSecretExpiresAt' | 'failingSince'
>;
type LoadedEvent = Pick<OutboxEventEntity, 'eventId' | 'type' | 'livemode' | 'payload' | 'createdAt'>;
type Loaded = { delivery: LoadedDelivery; endpoint: LoadedEndpoint; event: LoadedEvent | null };
type LoadedRow = {
  id: string;
  status: WebhookDeliveryEntity['status'];
  attempts: number;
  event_id: string;
  endpoint_id: string;
  tenant_id: string;
  livemode: boolean;
  url: string;
  endpoint_status: WebhookEndpointEntity['status'];
  deleted_at: Date | null;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  ev_event_id: string | null;
  ev_type: string | null;
  ev_livemode: boolean | null;
  ev_payload: Record<string, unknown> | null;
  ev_created_at: Date | null;
};
type SucceededAttempt = { deliveryId: string; attempt: number; startedAt: Date; result: SendResult };

/** What a receiver (or the network) said, made safe to store: a NUL in a response must not fail the attempt's row. */
function storable(r: SendResult): SendResult {
  return { ...r, body: toStorableText(r.body.slice(0, LOG_BODY_BYTES)), error: toStorableText(r.error) };
}

function isSuccess(r: SendResult): boolean {
  return r.error === null && r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
}

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
    private readonly audit: AuditLogService,
    private readonly metrics: Pick<Metrics, 'webhookAttempted'> = NO_METRICS,
  ) {}

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  async run(data: DeliverWebhookData): Promise<void> {
    await this.runBatch([data]);
  }

  /**
   * A fetched batch of attempts: one query reads every delivery with its endpoint and event, the
   * requests go out concurrently, and the attempts that succeeded (the common case) are recorded
   * together in one statement. Anything else is recorded on its own, as before. One attempt that
   * cannot be recorded never fails its neighbours: the batch statement falls back to one per
   * attempt, and an attempt whose row still fails is logged without the receiver's text.
   */
  async runBatch(items: DeliverWebhookData[]): Promise<void> {
    const loaded = await this.load(items.map((i) => i.deliveryId));
    const succeeded: SucceededAttempt[] = [];
    await Promise.all(
      items.map(async ({ deliveryId, attempt }) => {
        const row = loaded.get(deliveryId);
        if (!row) return;
        const { delivery, endpoint, event } = row;
        if (delivery.status !== 'pending' || delivery.attempts >= attempt) return;
        if (!event || endpoint.deletedAt || endpoint.status !== 'enabled') {
          await this.db.query(`UPDATE webhook_deliveries SET status = 'skipped', next_attempt_at = NULL, updated_at = $2 WHERE id = $1 AND status = 'pending'`, [deliveryId, this.now()]);
          return;
        }
        const startedAt = this.now();
        const result = storable(await this.attempt(endpoint, event, attempt));
        this.metrics.webhookAttempted(isSuccess(result) ? 'succeeded' : 'failed', (startedAt.getTime() - new Date(event.createdAt).getTime()) / 1000);
        if (isSuccess(result) && !endpoint.failingSince) {
          succeeded.push({ deliveryId, attempt, startedAt, result });
          return;
        }
        await this.recordAlone(delivery, endpoint, attempt, startedAt, result);
      }),
    );
    if (succeeded.length === 0) return;
    try {
      await this.persist(() => this.recordSucceeded(succeeded), { deliveryIds: succeeded.map((s) => s.deliveryId) });
    } catch (err) {
      this.logger.warn({ err: errorSummary(err), deliveryIds: succeeded.map((s) => s.deliveryId) }, 'recording a batch of webhook attempts failed; recording each alone');
      await Promise.all(
        succeeded.map((s) => {
          const row = loaded.get(s.deliveryId)!;
          return this.recordAlone(row.delivery, row.endpoint, s.attempt, s.startedAt, s.result);
        }),
      );
    }
  }

  /** Records one attempt; if its row cannot be stored as received, stores it without the receiver's text. */
  private async recordAlone(delivery: LoadedDelivery, endpoint: LoadedEndpoint, attempt: number, startedAt: Date, result: SendResult): Promise<void> {
    try {
      await this.persist(() => this.record(delivery, endpoint, attempt, startedAt, result), { deliveryId: delivery.id, attempt });
    } catch (err) {
      this.logger.error({ err: errorSummary(err), deliveryId: delivery.id, attempt }, 'recording a webhook attempt failed; recording it without the response');
      const bare: SendResult = { ...result, body: '', error: result.error === null ? null : 'the attempt failed (its error text could not be stored)' };
      await this.persist(() => this.record(delivery, endpoint, attempt, startedAt, bare), { deliveryId: delivery.id, attempt });
    }
  }

  /** The requests have gone out: a passing database hiccup should not make pg-boss send them again. */
  private async persist(write: () => Promise<void>, context: Record<string, unknown>): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await write();
        return;
      } catch (err) {
        if (tries >= 3) throw err;
        this.logger.warn({ err: errorSummary(err), ...context }, 'recording a webhook attempt failed; retrying');
        await new Promise((r) => setTimeout(r, 200 * tries));
      }
    }
  }

  /** The deliveries with their endpoints and events, in one round trip (this runs for every batch). */
  private async load(deliveryIds: string[]): Promise<Map<string, Loaded>> {
    const rows: LoadedRow[] = await this.db.query(
      `SELECT d.id, d.status, d.attempts, d.event_id,
              ep.id AS endpoint_id, ep.tenant_id, ep.livemode, ep.url, ep.status AS endpoint_status, ep.deleted_at,
              ep.secret_ciphertext, ep.previous_secret_ciphertext, ep.previous_secret_expires_at, ep.failing_since,
              ev.event_id AS ev_event_id, ev.type AS ev_type, ev.livemode AS ev_livemode, ev.payload AS ev_payload, ev.created_at AS ev_created_at
         FROM webhook_deliveries d
         JOIN webhook_endpoints ep ON ep.id = d.endpoint_id
         LEFT JOIN outbox_events ev ON ev.event_id = d.event_id
        WHERE d.id = ANY($1::text[])`,
      [deliveryIds],
    );
    return new Map(
      rows.map((r) => [
        r.id,
        {
          delivery: { id: r.id, status: r.status, attempts: r.attempts, eventId: r.event_id },
          endpoint: {
            id: r.endpoint_id,
            tenantId: r.tenant_id,
            livemode: r.livemode,
            url: r.url,
            status: r.endpoint_status,
            deletedAt: r.deleted_at,
            secretCiphertext: r.secret_ciphertext,
            previousSecretCiphertext: r.previous_secret_ciphertext,
            previousSecretExpiresAt: r.previous_secret_expires_at,
            failingSince: r.failing_since,
          },
          event: r.ev_event_id === null ? null : { eventId: r.ev_event_id, type: r.ev_type!, livemode: r.ev_livemode!, payload: r.ev_payload!, createdAt: r.ev_created_at! },
        },
      ]),
    );
  }

  /**
   * Successful attempts of endpoints in good health, in one statement: each delivery is claimed
   * (attempts n - 1 -> n) and its attempt logged, or nothing happens if another run logged it first.
   */
  private async recordSucceeded(list: SucceededAttempt[]): Promise<void> {
    await this.db.query(
      `WITH v AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[])
           AS v(id, attempt, started_at, duration_ms, status_code, response_body)),
       d AS (
         UPDATE webhook_deliveries w SET attempts = v.attempt, status = 'succeeded', next_attempt_at = NULL, updated_at = $7
           FROM v WHERE w.id = v.id AND w.attempts = v.attempt - 1 AND w.status = 'pending'
         RETURNING w.id, w.endpoint_id, w.tenant_id, w.event_id, v.attempt, v.started_at, v.duration_ms, v.status_code, v.response_body)
       INSERT INTO webhook_attempts (delivery_id, endpoint_id, tenant_id, event_id, attempt, started_at, duration_ms, status_code, succeeded, error, response_body, next_retry_at)
       SELECT id, endpoint_id, tenant_id, event_id, attempt, started_at, duration_ms, status_code, true, NULL, response_body, NULL FROM d`,
      [
        list.map((s) => s.deliveryId),
        list.map((s) => s.attempt),
        list.map((s) => s.startedAt.toISOString()),
        list.map((s) => s.result.durationMs),
        list.map((s) => s.result.statusCode),
        list.map((s) => s.result.body || null),
        this.now(),
      ],
    );
  }

  private async attempt(endpoint: LoadedEndpoint, event: LoadedEvent, attempt: number): Promise<SendResult> {
    let target;
    try {
      // Checked again at every attempt: the name may resolve elsewhere now than at registration.
      target = await resolveWebhookTarget(endpoint.url, endpoint.livemode, this.opts.resolver, { allowPrivate: this.opts.allowPrivateTargets });
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
  private secretsOf(endpoint: LoadedEndpoint): string[] {
    const secrets = [this.box.open(endpoint.secretCiphertext)];
    if (endpoint.previousSecretCiphertext && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > this.now()) {
      secrets.push(this.box.open(endpoint.previousSecretCiphertext));
    }
    return secrets;
  }

  /** Any other attempt: claim it, log it, schedule the next one and update the endpoint's health, together. */
  private async record(delivery: LoadedDelivery, endpoint: LoadedEndpoint, attempt: number, startedAt: Date, r: SendResult): Promise<void> {
    const succeeded = isSuccess(r);
    const gone = r.statusCode === 410;
    const now = this.now();
    const delay = succeeded || gone ? null : retryDelayMs(attempt, { scale: this.opts.retryScale, retryAfterMs: parseRetryAfter(r.headers['retry-after']), random: this.opts.random });
    const nextRetryAt = delay === null ? null : new Date(now.getTime() + delay);
    const error = r.error ?? (succeeded ? null : r.statusCode !== null && r.statusCode >= 300 && r.statusCode < 400 ? `HTTP ${r.statusCode} (redirects are not followed)` : `HTTP ${r.statusCode}`);

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
        responseBody: r.body || null,
        nextRetryAt,
      } as QueryDeepPartialEntity<WebhookAttemptEntity>);
      if (nextRetryAt) await this.dispatcher.scheduleAttempt(m, delivery.id, attempt + 1, nextRetryAt);
      await this.updateEndpointHealth(m, endpoint, succeeded, gone, now);
    });
    if (!succeeded) this.logger.info({ deliveryId: delivery.id, endpointId: endpoint.id, attempt, statusCode: r.statusCode, error, nextRetryAt }, 'webhook attempt failed');
  }

  private async updateEndpointHealth(m: EntityManager, endpoint: LoadedEndpoint, succeeded: boolean, gone: boolean, now: Date): Promise<void> {
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
    // The endpoint id names it; its URL stays out of the append-only log.
    await this.audit.append(
      {
        tenantId: endpoint.tenantId,
        livemode: endpoint.livemode,
        action: 'webhook_endpoint.disabled',
        subjectId: endpoint.id,
        detail: {
          reason,
          message: gone ? 'The receiver answered 410 Gone' : 'Every delivery attempt failed for 3 days',
          failing_since: new Date(failingSince).toISOString(),
        },
        at: now,
      },
      m,
    );
    this.logger.warn({ endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
  }
}

/** An error for the log without its SQL parameters (they carry the receiver's response). */
function errorSummary(err: unknown): { message: string; code?: string } {
  const e = err as { message?: unknown; code?: unknown };
  return { message: typeof e?.message === 'string' ? e.message.slice(0, 300) : 'unknown error', ...(typeof e?.code === 'string' ? { code: e.code } : {}) };
}
