import type { OutboxEventEntity, SessionEntity } from '../entities';
import type { Actor } from '../src/auth/actor';
import { notFound } from '../src/errors';
import type { Logger } from '../src/logger';
import { statusEventsOf, type SessionStatusEvent } from '../src/sessions/session-status-event';
import type { SessionWatchService } from '../src/sessions/session-watch.service';
import type { StatusBus } from './status-bus';
import { StatusSubscriber, type ConnectionBudget } from './status-subscriber';
import { Topic } from './topics';

const tenantKey = (tenantId: string, livemode: boolean) => `${tenantId}:${livemode ? 'live' : 'test'}`;

/**
 * Routes committed status changes from the bus to this instance's subscribers: by session id, and by
 * tenant and mode. Every subscription is authorised by SessionWatchService, with the same rule as reads.
 */
export class SessionStatusHub {
  private readonly bySession = new Map<string, Set<StatusSubscriber>>();
  private readonly byTenant = new Map<string, Set<StatusSubscriber>>();
  private readonly all = new Set<StatusSubscriber>();

  constructor(
    private readonly bus: StatusBus,
    private readonly watches: SessionWatchService,
    private readonly logger: Logger,
  ) {}

  start(): Promise<void> {
    return this.bus.listen((event) => this.route(event));
  }

  /** The `SessionService.onCommittedEvents` listener: runs after the commit, never throws into the service. */
  readonly publishCommitted = (rows: OutboxEventEntity[], session: SessionEntity): void => {
    try {
      for (const event of statusEventsOf(rows, session)) this.bus.publish(Topic.SessionStatus, event);
    } catch (err) {
      this.logger.error({ err, sessionId: session.id }, 'publishing a session status change failed');
    }
  };

  get subscriberCount(): number {
    return this.all.size;
  }

  /**
   * `id` given: that session's current status, then each later change, ending after a terminal one.
   * No `id`: every change of the tenant's sessions in the key's mode (tenant keys only). A session
   * client_secret may watch its own session only; leaving out `id` means that session.
   */
  async watch(actor: Actor | null, id: string | null | undefined, budget: ConnectionBudget): Promise<AsyncIterableIterator<SessionStatusEvent>> {
    const target = this.watches.authorize(actor, id);
    const { sessionId, tenantId, livemode } = target;
    if (sessionId === null) {
      return this.register(this.byTenant, tenantKey(tenantId, livemode), (onEnd) => new StatusSubscriber(budget, false, onEnd));
    }
    // Register before reading, so a change committed during the read is held, not lost; `begin`
    // then drops whatever the read already reflects (by seq).
    const sub = this.register(this.bySession, sessionId, (onEnd) => new StatusSubscriber(budget, true, onEnd, true));
    try {
      const current = await this.watches.current(target.actor, sessionId);
      if (!current) throw notFound();
      sub.begin(current);
      return sub;
    } catch (err) {
      sub.finish();
      throw err;
    }
  }

  /** Completes every subscription (shutdown): queued events are still sent, then `complete`. */
  completeAll(): void {
    for (const s of [...this.all]) s.complete();
  }

  private register(
    index: Map<string, Set<StatusSubscriber>>,
    key: string,
    create: (onEnd: () => void) => StatusSubscriber,
  ): StatusSubscriber {
    let set = index.get(key);
    if (!set) index.set(key, (set = new Set()));
    const members = set;
    const sub = create(() => {
      members.delete(sub);
      if (members.size === 0 && index.get(key) === members) index.delete(key);
      this.all.delete(sub);
    });
    members.add(sub);
    this.all.add(sub);
    return sub;
  }

  private route(event: SessionStatusEvent): void {
    try {
      for (const s of this.bySession.get(event.session.id) ?? []) s.offer(event);
      for (const s of this.byTenant.get(tenantKey(event.tenantId, event.livemode)) ?? []) s.offer(event);
    } catch (err) {
      this.logger.error({ err }, 'routing a session status change failed');
    }
  }
}
