import { DataSource, EntityManager, IsNull } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OutboxEventEntity, WebhookDeliveryEntity, WebhookEndpointEntity } from '../../entities';
import { newId } from '../ids';
import type { JobQueue, RetryPolicy } from '../jobs/job-queue';
import { endpointReceives, isObligationEventType, isWebhookEventType } from './webhook-event';
import { systemClock, type Clock } from '../clock';

export const DELIVER_WEBHOOK_JOB = 'webhook-deliver';
/**
 * pg-boss's retry of an attempt's job: only when the job itself failed (its attempt could not be
 * recorded) or its worker died. A receiver's failure is not that: the job records it and schedules
 * the next attempt itself (retry.schedule.ts, docs/webhooks.md).
 */
export const DELIVER_WEBHOOK_RETRY: RetryPolicy = { limit: 10, delaySeconds: 5, backoff: true, maxDelaySeconds: 600 };

export type DeliverWebhookData = { deliveryId: string; attempt: number };

/** An obligation event to enqueue: its tenant and mode, type (`biometric.purged`, `user.*`) and data. */
export type ObligationEvent = { tenantId: string; livemode: boolean; type: string; data: Record<string, unknown> };

/**
 * Turns outbox rows into deliveries. It runs inside the transaction that wrote the rows, so a
 * status change, its event and the jobs that will deliver it commit together or not at all.
 */
const isWebhookEvent = (e: OutboxEventEntity): boolean => isWebhookEventType(e.type);

export class WebhookDispatcher {
  /** The pg-boss queue of delivery attempts. */
  readonly queue = DELIVER_WEBHOOK_JOB;
  private readonly expireInSeconds: number;
  private readonly now: Clock;
  private readonly db: DataSource | undefined;

  constructor(
    private readonly jobs: Pick<JobQueue, 'send' | 'sendMany'>,
    opts: {
      /** Seconds after which pg-boss takes back a job whose worker died mid-delivery. */
      expireInSeconds: number;
      now?: Clock;
      /** For obligations enqueued outside a caller's transaction. */
      db?: DataSource;
    },
  ) {
    this.expireInSeconds = opts.expireInSeconds;
    this.now = opts.now ?? systemClock;
    this.db = opts.db;
  }

  /**
   * An obligation event (`biometric.purged`, `user.*`; docs/api-behaviour.md, "Webhooks and
   * events"): one outbox row and a delivery to EVERY enabled endpoint of the tenant in that mode,
   * whatever events it registered, signed and retried like any delivery. Inside `within` it
   * commits with the caller's change. Returns the event id.
   */
  async enqueueObligation(tenantId: string, livemode: boolean, type: string, data: Record<string, unknown>, within?: EntityManager): Promise<string> {
    return (await this.enqueueObligations([{ tenantId, livemode, type, data }], within))[0];
  }

  /**
   * Many obligation events at once (e.g. one `biometric.purged` per verification and class of a
   * purge): one INSERT of their outbox rows, one read of the endpoints per tenant and mode, one
   * INSERT of the deliveries and one of their first attempts, instead of four statements per event.
   * Returns the event ids in the order given.
   */
  async enqueueObligations(events: ObligationEvent[], within?: EntityManager): Promise<string[]> {
    if (events.length === 0) return [];
    for (const e of events) if (!isObligationEventType(e.type)) throw new Error(`${e.type} is not an obligation event`);
    const run = async (m: EntityManager): Promise<string[]> => {
      const createdAt = this.now();
      const rows = events.map((e) => Object.assign(new OutboxEventEntity(), { eventId: newId('evt'), type: e.type, tenantId: e.tenantId, livemode: e.livemode, sessionId: null, payload: e.data, createdAt }));
      await m.insert(OutboxEventEntity, rows as QueryDeepPartialEntity<OutboxEventEntity>[]);
      await this.onOutbox(m, rows);
      return rows.map((r) => r.eventId);
    };
    if (within) return run(within);
    if (!this.db) throw new Error('WebhookDispatcher has no DataSource: pass a transaction');
    return this.db.transaction(run);
  }

  /**
   * The SessionService outbox handler (and that of any later event source). However many events
   * the transaction wrote, their deliveries and first-attempt jobs take one INSERT each.
   */
  readonly onOutbox = Object.assign(async (m: EntityManager, events: OutboxEventEntity[]): Promise<void> => {
    const deliverable = events.filter(isWebhookEvent);
    if (deliverable.length === 0) return;
    const endpointsByScope = new Map<string, WebhookEndpointEntity[]>();
    const targets: { tenantId: string; eventId: string; endpointIds: string[] }[] = [];
    for (const e of deliverable) {
      const scopeKey = `${e.tenantId}:${e.livemode}`;
      let endpoints = endpointsByScope.get(scopeKey);
      if (!endpoints) {
        endpoints = await m.getRepository(WebhookEndpointEntity).find({
          where: { tenantId: e.tenantId, livemode: e.livemode, status: 'enabled', deletedAt: IsNull() },
          select: { id: true, events: true },
        });
        endpointsByScope.set(scopeKey, endpoints);
      }
      targets.push({ tenantId: e.tenantId, eventId: e.eventId, endpointIds: endpoints.filter((ep) => endpointReceives(ep.events, e.type)).map((ep) => ep.id) });
    }
    await this.enqueueMany(m, targets, false);
  }, { wants: isWebhookEvent });

  /** New deliveries of each event to its endpoints, each with its first attempt queued now. */
  async enqueueMany(m: EntityManager, targets: { tenantId: string; eventId: string; endpointIds: string[] }[], replay: boolean): Promise<number> {
    const now = this.now();
    const rows = targets.flatMap(({ tenantId, eventId, endpointIds }) =>
      endpointIds.map((endpointId) => ({
        id: newId('dlv'),
        endpointId,
        tenantId,
        eventId,
        status: 'pending' as const,
        attempts: 0,
        replay,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })),
    );
    if (rows.length === 0) return 0;
    await m.insert(WebhookDeliveryEntity, rows as QueryDeepPartialEntity<WebhookDeliveryEntity>[]);
    await this.jobs.sendMany<DeliverWebhookData>(
      this.queue,
      rows.map((r) => ({ deliveryId: r.id, attempt: 1 })),
      { within: m, expireInSeconds: this.expireInSeconds, retry: DELIVER_WEBHOOK_RETRY },
    );
    return rows.length;
  }

  async scheduleAttempt(m: EntityManager, deliveryId: string, attempt: number, startAfter?: Date): Promise<void> {
    await this.jobs.send<DeliverWebhookData>(
      this.queue,
      { deliveryId, attempt },
      { within: m, expireInSeconds: this.expireInSeconds, retry: DELIVER_WEBHOOK_RETRY, ...(startAfter ? { startAfter } : {}) },
    );
  }
}
