import type { AlsoWithin } from '../db/also-within';
import { DataSource, IsNull } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { OutboxEventEntity, WebhookAttemptEntity, WebhookEndpointEntity } from '../../entities';
import type { TenantScope } from '../auth/actor';
import { DomainError, notFound } from '../errors';
import { newId, randomBase62 } from '../ids';
import { resolveWebhookTarget, Resolver } from './ssrf.guard';
import { WebhookDispatcher } from './webhook.dispatcher';
import { endpointReceives, isWebhookEventType, SUBSCRIBABLE_EVENTS } from './webhook-event';
import type { WebhookSecretBox } from './webhook-secret.box';
import type { Clock } from '../clock';

export const WEBHOOK_ID_PATTERN = /^whk_[A-Za-z0-9]{16,}$/;
/** Longest overlap a rotation may keep the old secret signing. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
/** Most events one replay call may queue. */
export const MAX_REPLAY_EVENTS = 10_000;

export type ReplayCommand = { eventIds?: string[] | null; since?: Date | null; until?: Date | null };
export type AttemptQuery = { endpointId?: string | null; eventId?: string | null; first: number };

const newSigningSecret = () => `whsec_${randomBase62(32)}`;

/** Endpoint management, replay and the delivery log, always within the caller's tenant and mode. */
export class WebhookService {
  constructor(
    private readonly db: DataSource,
    private readonly box: WebhookSecretBox,
    private readonly dispatcher: WebhookDispatcher,
    private readonly opts: { allowPrivateTargets?: boolean; resolver?: Resolver; now?: Clock } = {},
  ) {}

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  async create(scope: TenantScope, input: { url: string; events: string[] }, also?: AlsoWithin<WebhookEndpointEntity>): Promise<{ endpoint: WebhookEndpointEntity; signingSecret: string }> {
    if (typeof input.url !== 'string' || input.url.length > 2048) throw new DomainError('invalid_request', 'url must be a URI of at most 2048 characters');
    const events = validateEvents(input.events);
    await resolveWebhookTarget(input.url, scope.livemode, this.opts.resolver, { allowUnresolved: true, allowPrivate: this.opts.allowPrivateTargets });
    const signingSecret = newSigningSecret();
    const now = this.now();
    const endpoint = Object.assign(new WebhookEndpointEntity(), {
      id: newId('whk'),
      tenantId: scope.tenantId,
      livemode: scope.livemode,
      url: input.url,
      events,
      secretCiphertext: this.box.seal(signingSecret),
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      status: 'enabled',
      disabledReason: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    } satisfies WebhookEndpointEntity);
    await this.db.transaction(async (m) => {
      await m.getRepository(WebhookEndpointEntity).insert(endpoint as QueryDeepPartialEntity<WebhookEndpointEntity>);
      await also?.(m, endpoint);
    });
    return { endpoint, signingSecret };
  }

  async list(scope: TenantScope): Promise<WebhookEndpointEntity[]> {
    return this.db.getRepository(WebhookEndpointEntity).find({
      where: { tenantId: scope.tenantId, livemode: scope.livemode, deletedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /** Another tenant's (or mode's) endpoint is `not_found`, never a hint that it exists. */
  async get(scope: TenantScope, id: string): Promise<WebhookEndpointEntity> {
    if (typeof id !== 'string' || !WEBHOOK_ID_PATTERN.test(id)) throw notFound('Webhook endpoint');
    const found = await this.db
      .getRepository(WebhookEndpointEntity)
      .findOneBy({ id, tenantId: scope.tenantId, livemode: scope.livemode, deletedAt: IsNull() });
    if (!found) throw notFound('Webhook endpoint');
    return found;
  }

  async disable(scope: TenantScope, id: string): Promise<WebhookEndpointEntity> {
    const ep = await this.get(scope, id);
    return this.save(ep, { status: 'disabled', disabledReason: 'disabled_by_tenant' });
  }

  /** Re-enabling also forgets the failure streak that may have disabled it. */
  async enable(scope: TenantScope, id: string): Promise<WebhookEndpointEntity> {
    const ep = await this.get(scope, id);
    await resolveWebhookTarget(ep.url, ep.livemode, this.opts.resolver, { allowUnresolved: true, allowPrivate: this.opts.allowPrivateTargets });
    return this.save(ep, { status: 'enabled', disabledReason: null, failingSince: null });
  }

  async delete(scope: TenantScope, id: string): Promise<void> {
    const ep = await this.get(scope, id);
    await this.save(ep, { status: 'disabled', disabledReason: 'deleted', deletedAt: this.now() });
  }

  /**
   * A new secret, returned this once. The old one keeps signing (as a second `sig`) for
   * `overlapSeconds`, so receivers can switch without dropping deliveries.
   */
  async rotateSecret(scope: TenantScope, id: string, overlapSeconds = DEFAULT_ROTATION_OVERLAP_SECONDS): Promise<{ endpoint: WebhookEndpointEntity; signingSecret: string }> {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_ROTATION_OVERLAP_SECONDS) {
      throw new DomainError('invalid_request', `overlapSeconds must be an integer from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`);
    }
    const ep = await this.get(scope, id);
    const signingSecret = newSigningSecret();
    const now = this.now();
    const endpoint = await this.save(ep, {
      secretCiphertext: this.box.seal(signingSecret),
      previousSecretCiphertext: overlapSeconds > 0 ? ep.secretCiphertext : null,
      previousSecretExpiresAt: overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000) : null,
    });
    return { endpoint, signingSecret };
  }

  /** Queues the chosen events again to this endpoint as new deliveries (signed afresh at each attempt). Returns how many. */
  async replay(scope: TenantScope, id: string, cmd: ReplayCommand, also?: AlsoWithin<number>): Promise<number> {
    const ep = await this.get(scope, id);
    if (ep.status !== 'enabled') throw new DomainError('invalid_state', 'The endpoint is disabled; enable it before replaying');
    const byIds = cmd.eventIds != null;
    const byWindow = cmd.since != null || cmd.until != null;
    if (byIds === byWindow) throw new DomainError('invalid_request', 'Give either event_ids or a since/until window');
    const qb = this.db
      .getRepository(OutboxEventEntity)
      .createQueryBuilder('e')
      .where('e.tenant_id = :tenantId AND e.livemode = :livemode', { tenantId: scope.tenantId, livemode: scope.livemode })
      .orderBy('e.seq', 'ASC')
      .take(MAX_REPLAY_EVENTS + 1);
    if (byIds) {
      const ids = cmd.eventIds!;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 1000 || ids.some((e) => typeof e !== 'string')) {
        throw new DomainError('invalid_request', 'event_ids must be a non-empty array of at most 1000 event ids');
      }
      qb.andWhere('e.event_id IN (:...ids)', { ids });
    } else {
      const since = cmd.since ?? new Date(0);
      const until = cmd.until ?? this.now();
      if (Number.isNaN(since.getTime()) || Number.isNaN(until.getTime()) || since > until) throw new DomainError('invalid_request', 'since must be before until');
      qb.andWhere('e.created_at >= :since AND e.created_at < :until', { since, until });
    }
    const events = (await qb.getMany()).filter((e) => (byIds ? isWebhookEventType(e.type) : endpointReceives(ep.events, e.type)));
    if (events.length > MAX_REPLAY_EVENTS) throw new DomainError('invalid_request', `A replay may queue at most ${MAX_REPLAY_EVENTS} events; narrow the window`);
    const targets = events.map((e) => ({ tenantId: scope.tenantId, eventId: e.eventId, endpointIds: [ep.id] }));
    return this.db.transaction(async (m) => {
      const queued = await this.dispatcher.enqueueMany(m, targets, true);
      await also?.(m, queued);
      return queued;
    });
  }

  /** The delivery log, newest first, for one endpoint or one event (or both) of this tenant. */
  async attempts(scope: TenantScope, q: AttemptQuery): Promise<WebhookAttemptEntity[]> {
    if (!Number.isInteger(q.first) || q.first < 1 || q.first > 100) throw new DomainError('invalid_request', 'first must be between 1 and 100');
    if (!q.endpointId && !q.eventId) throw new DomainError('invalid_request', 'Give endpointId or eventId');
    if (q.endpointId) await this.get(scope, q.endpointId);
    const qb = this.db
      .getRepository(WebhookAttemptEntity)
      .createQueryBuilder('a')
      .innerJoin(WebhookEndpointEntity, 'ep', 'ep.id = a.endpoint_id')
      .where('a.tenant_id = :tenantId AND ep.livemode = :livemode', scope)
      .orderBy('a.seq', 'DESC')
      .take(q.first);
    if (q.endpointId) qb.andWhere('a.endpoint_id = :endpointId', { endpointId: q.endpointId });
    if (q.eventId) qb.andWhere('a.event_id = :eventId', { eventId: q.eventId });
    return qb.getMany();
  }

  private async save(ep: WebhookEndpointEntity, changes: Partial<WebhookEndpointEntity>): Promise<WebhookEndpointEntity> {
    Object.assign(ep, changes, { updatedAt: this.now() });
    await this.db.getRepository(WebhookEndpointEntity).save(ep);
    return ep;
  }
}

function validateEvents(events: unknown): string[] {
  if (!Array.isArray(events) || events.length === 0) throw new DomainError('invalid_request', 'events must be a non-empty array');
  for (const e of events) {
    if (typeof e !== 'string' || !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(e)) {
      throw new DomainError('invalid_request', `events may contain only ${SUBSCRIBABLE_EVENTS.join(', ')}`);
    }
  }
  return [...new Set(events as string[])];
}
