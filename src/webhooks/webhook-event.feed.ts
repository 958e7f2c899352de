import type { DataSource } from 'typeorm';
import type { Actor, TenantScope } from '../auth/actor';
import { requireTenantKey } from '../auth/auth.service';
import { DomainError } from '../errors';
import { envelopeOf } from './webhook-event';
import { systemClock, type Clock } from '../clock';

/** One event as a webhook carries it: the envelope's fields, and `body`, the exact bytes a delivery sends and signs. */
export type FeedEvent = { eventId: string; type: string; createdAt: Date; livemode: boolean; payload: Record<string, unknown>; body: string };

type Row = { event_id: string; type: string; created_at: Date; livemode: boolean; payload: Record<string, unknown> | string };

/** How often a follower reads the outbox. */
export const FEED_POLL_MS = 250;
/**
 * How far back each read looks. An outbox row carries the time its transaction began, and becomes
 * visible when that transaction commits: a row committed up to this long after its `created_at` is
 * still seen. Ids already sent are remembered for as long, so nothing goes out twice.
 */
export const FEED_LOOKBACK_MS = 60_000;
const PAGE = 500;

/**
 * The tenant's webhook events of one mode as they are committed (`webhookEvents` subscription, the
 * source of `webhooks listen`, D23; docs/webhooks.md, "On your own machine"). It reads the outbox
 * itself, not the status bus: every event type (`verification.*`, `user.*`, `biometric.purged`) is
 * there, whichever instance or job wrote it, and only after its commit. It starts with the events
 * committed after the follower subscribed.
 */
export class WebhookEventFeed {
  constructor(
    private readonly db: Pick<DataSource, 'query'>,
    private readonly pollMs = FEED_POLL_MS,
    private readonly now: Clock = systemClock,
  ) {}

  async *follow(scope: TenantScope): AsyncGenerator<FeedEvent> {
    const sent = new Map<string, number>();
    // What is already committed is the past: remembered, not sent.
    for (const r of await this.read(scope)) sent.set(r.event_id, new Date(r.created_at).getTime());
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
      const horizon = this.now().getTime() - FEED_LOOKBACK_MS;
      for (const [id, at] of sent) if (at < horizon) sent.delete(id);
      for (const r of await this.read(scope)) {
        if (sent.has(r.event_id)) continue;
        const createdAt = new Date(r.created_at);
        sent.set(r.event_id, createdAt.getTime());
        const payload = typeof r.payload === 'string' ? (JSON.parse(r.payload) as Record<string, unknown>) : r.payload;
        const event = { eventId: r.event_id, type: r.type, createdAt, livemode: r.livemode, payload };
        yield { ...event, body: envelopeOf(event) };
      }
    }
  }

  /** The webhook events (the families isWebhookEventType names) of the last FEED_LOOKBACK_MS, oldest first; the newest PAGE of them in a burst. */
  private async read(scope: TenantScope): Promise<Row[]> {
    const newestFirst: Row[] = await this.db.query(
      `SELECT event_id, type, created_at, livemode, payload FROM outbox_events
        WHERE tenant_id = $1 AND livemode = $2 AND created_at >= $3
          AND (type LIKE 'verification.%' OR type LIKE 'user.%' OR type LIKE 'biometric.%')
        ORDER BY created_at DESC, seq DESC LIMIT ${PAGE}`,
      [scope.tenantId, scope.livemode, new Date(this.now().getTime() - FEED_LOOKBACK_MS)],
    );
    return newestFirst.reverse();
  }
}

/**
 * Who may follow the feed, and what: a test key with `webhooks:manage`, its tenant's test mode. A
 * live key is refused: live events reach only registered endpoints, never a developer's machine (D23).
 */
export function listenerScope(actor: Actor | null | undefined): TenantScope {
  const key = requireTenantKey(actor ?? null, 'webhooks:manage');
  if (key.livemode) throw new DomainError('invalid_request', 'webhooks listen is for test mode: use a sk_test_ key (live events go only to registered webhook endpoints)');
  return { tenantId: key.tenantId, livemode: false };
}
