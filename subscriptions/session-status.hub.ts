import type { OutboxEventEntity, SessionEntity } from '../entities';
import type { Actor } from '../src/auth/actor';
import { notFound } from '../src/errors';
import type { Logger } from '../src/logger';
import { statusEventsOf, type SessionStatusEvent, type SessionWatchItem } from '../src/sessions/session-status-event';
import type { SessionWatchService } from '../src/sessions/session-watch.service';
import type { StatusBus } from './status-bus';
import { StatusSubscriber, type ConnectionBudget } from './status-subscriber';
import { Topic } from './topics';

const tenantKey = (tenantId: string, livemode: boolean) => `${tenantId}:${livemode ? 'live' : 'test'}`;

/**
 * Routes committed status changes from the bus to this instance's subscribers: by session id, and by
 * tenant and mode. Every subscription is authorised by SessionWatchService, with the same rule as reads.
 *
 * That rule includes the data-rights one (a tenant may not read a restricted or deleted user's
 * session), which can change while a subscription runs. So an event of a session bound to a user is
 * passed through the rule again, per subscriber, before it is delivered: a tenant-wide watcher just
 * does not receive it; a watcher of that one session gets the refusal (e.g. `user_restricted`) and
 * its subscription completes. `recheckUsers` applies the rule to watched sessions that have no new
 * event, so a restriction also ends their watches without waiting for one.
 */
export class SessionStatusHub {
  private readonly bySession = new Map<string, Set<StatusSubscriber>>();
  private readonly byTenant = new Map<string, Set<StatusSubscriber>>();
  /** Every subscriber, with the actor it watches as. */
  private readonly all = new Map<StatusSubscriber, Actor>();
  /** The user each watched session (by id) is bound to, as last seen; unbound sessions are absent. */
  private readonly sessionUsers = new Map<string, string>();
  /** Per session, the routing of its last event bound to a user (events of one session stay in order while the rule is read). */
  private readonly gating = new Map<string, Promise<void>>();

  constructor(
    private readonly bus: StatusBus,
    private readonly watches: SessionWatchService,
    private readonly logger: Logger,
  ) {}

  start(): Promise<void> {
    return this.bus.listen((event) => this.route(event));
  }

  /** `SessionEffects.committed` of the sessions: runs after the commit, never throws into the service. */
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
  async watch(actor: Actor | null, id: string | null | undefined, budget: ConnectionBudget): Promise<AsyncIterableIterator<SessionWatchItem>> {
    const target = this.watches.authorize(actor, id);
    const { sessionId, tenantId, livemode } = target;
    if (sessionId === null) {
      return this.register(this.byTenant, tenantKey(tenantId, livemode), target.actor, (onEnd) => new StatusSubscriber(budget, false, onEnd));
    }
    // Register before reading, so a change committed during the read is held, not lost; `begin`
    // then drops whatever the read already reflects (by seq).
    const sub = this.register(this.bySession, sessionId, target.actor, (onEnd) => new StatusSubscriber(budget, true, onEnd, true));
    try {
      const current = await this.watches.current(target.actor, sessionId);
      if (!current) throw notFound();
      if (current.userId) this.sessionUsers.set(sessionId, current.userId);
      sub.begin(current);
      return sub;
    } catch (err) {
      sub.finish();
      throw err;
    }
  }

  /** Completes every subscription (shutdown): queued events are still sent, then `complete`. */
  completeAll(): void {
    for (const s of [...this.all.keys()]) s.complete();
  }

  /**
   * Applies the read rule again to every watched session bound to a user (one query for all of
   * them): a watcher that may no longer see its session gets the refusal and completes. Called on the
   * subscription server's re-check interval, so a restriction ends watches within that interval even
   * when the session does not change.
   */
  async recheckUsers(): Promise<void> {
    const checks: Promise<void>[] = [];
    for (const [sessionId, userId] of this.sessionUsers) {
      for (const sub of this.bySession.get(sessionId) ?? []) {
        const actor = this.all.get(sub);
        if (!actor) continue;
        checks.push(
          this.watches.refusal(actor, userId).then((refusal) => {
            if (refusal) sub.refuse(sessionId, refusal);
          }),
        );
      }
    }
    await Promise.all(checks);
  }

  private register(
    index: Map<string, Set<StatusSubscriber>>,
    key: string,
    actor: Actor,
    create: (onEnd: () => void) => StatusSubscriber,
  ): StatusSubscriber {
    let set = index.get(key);
    if (!set) index.set(key, (set = new Set()));
    const members = set;
    const sub = create(() => {
      members.delete(sub);
      if (members.size === 0 && index.get(key) === members) {
        index.delete(key);
        if (index === this.bySession) this.sessionUsers.delete(key);
      }
      this.all.delete(sub);
    });
    members.add(sub);
    this.all.set(sub, actor);
    return sub;
  }

  private route(event: SessionStatusEvent): void {
    try {
      const single = this.bySession.get(event.session.id);
      const wide = this.byTenant.get(tenantKey(event.tenantId, event.livemode));
      if (!single && !wide) return;
      if (!event.userId) {
        for (const s of single ?? []) s.offer(event);
        for (const s of wide ?? []) s.offer(event);
        return;
      }
      if (single) this.sessionUsers.set(event.session.id, event.userId);
      const id = event.session.id;
      const routed = (this.gating.get(id) ?? Promise.resolve())
        .then(() => this.routeGated(event, [...(single ?? [])], [...(wide ?? [])]))
        .catch((err: unknown) => this.logger.error({ err, sessionId: id }, 'routing a session status change failed'));
      this.gating.set(id, routed);
      void routed.finally(() => {
        if (this.gating.get(id) === routed) this.gating.delete(id);
      });
    } catch (err) {
      this.logger.error({ err }, 'routing a session status change failed');
    }
  }

  /** An event of a session bound to a user, through the read rule for each subscriber (one query for all). */
  private async routeGated(event: SessionStatusEvent, single: StatusSubscriber[], wide: StatusSubscriber[]): Promise<void> {
    const refusalOf = (s: StatusSubscriber) => {
      const actor = this.all.get(s);
      return actor ? this.watches.refusal(actor, event.userId) : Promise.resolve(null);
    };
    const [singleRefusals, wideRefusals] = await Promise.all([Promise.all(single.map(refusalOf)), Promise.all(wide.map(refusalOf))]);
    single.forEach((s, i) => {
      const refusal = singleRefusals[i];
      if (refusal) s.refuse(event.session.id, refusal);
      else s.offer(event);
    });
    wide.forEach((s, i) => {
      if (!wideRefusals[i]) s.offer(event);
    });
  }
}
