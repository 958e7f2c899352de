import type { DomainError } from '../errors';
import { isTerminal, seqAfter, type SessionStatusEvent, type SessionWatchItem } from './session-status-event';

/**
 * What one WebSocket connection shares between its subscriptions: a bound on the events queued for
 * it, and the revocation flag its credential watch sets.
 */
export type ConnectionBudget = {
  /** Events queued across this connection's subscriptions and not yet taken by the socket writer. */
  pending: number;
  readonly limit: number;
  revoked: boolean;
  /** Called once when `pending` exceeds `limit`: the connection is too slow and gets closed. */
  overflow(): void;
};

/** Remembered `seq` per session for de-duplication; a tenant-wide subscriber forgets the oldest beyond this. */
const MAX_TRACKED_SESSIONS = 10_000;

/**
 * One subscription's event stream: an async iterator over a bounded, de-duplicated queue. Events
 * reach it through `offer` (from the hub); the GraphQL executor pulls them with `next`, which it does
 * only after the previous message was written to the socket, so a slow reader makes the queue grow
 * until the connection's budget is exceeded.
 *
 * Or, once `attach`ed, it pushes: every accepted event goes synchronously to the consumer, which
 * writes it to the socket and charges the connection budget for each write not yet completed (the
 * push source of subscriptions/shared-execution.ts, which finds `attach` by its shape, so the domain
 * does not import the transport). A broadcast to N subscribers then costs N synchronous calls, not N chains of
 * promises. De-duplication, ordering and the end after a terminal status are the same in both modes.
 */
export class StatusSubscriber implements AsyncIterableIterator<SessionWatchItem> {
  private readonly queue: SessionWatchItem[] = [];
  private readonly lastSeq = new Map<string, string>();
  private waiter: ((r: IteratorResult<SessionWatchItem>) => void) | null = null;
  /** Events that arrive while the current state is being read; released by `begin`. */
  private early: SessionStatusEvent[] | null;
  private closing = false;
  private done = false;
  private push: ((item: SessionWatchItem) => void) | null = null;
  private onPushEnd: (() => void) | null = null;

  constructor(
    private readonly budget: ConnectionBudget,
    /** A single-session subscription ends after delivering a terminal status. */
    private readonly endAfterTerminal: boolean,
    private readonly onEnd: () => void,
    holdUntilBegin = false,
  ) {
    this.early = holdUntilBegin ? [] : null;
  }

  get ended(): boolean {
    return this.done;
  }

  /** First delivers `current` (the state read after registering), then what arrived meanwhile and is newer. */
  begin(current: SessionStatusEvent): void {
    const held = this.early ?? [];
    this.early = null;
    this.budget.pending -= held.length;
    this.accept(current);
    for (const e of held) this.offer(e);
  }

  offer(event: SessionStatusEvent): void {
    if (this.done || this.closing) return;
    if (this.early) {
      this.early.push(event);
      this.charge();
      return;
    }
    const last = this.lastSeq.get(event.session.id);
    if (last !== undefined && !seqAfter(event.seq, last)) return; // a duplicate, or older than what we showed
    this.accept(event);
  }

  private accept(event: SessionStatusEvent): void {
    this.lastSeq.delete(event.session.id);
    this.lastSeq.set(event.session.id, event.seq);
    if (this.lastSeq.size > MAX_TRACKED_SESSIONS) this.lastSeq.delete(this.lastSeq.keys().next().value!);
    if (this.endAfterTerminal && isTerminal(event.session.status)) this.closing = true;
    this.deliver(event);
  }

  /**
   * Ends the stream with `error` in place of a status (the read rule no longer lets this watcher see
   * the session): what is queued goes first, then the refusal, then the end.
   */
  refuse(sessionId: string, error: DomainError): void {
    if (this.done || this.closing) return;
    if (this.early) {
      this.budget.pending -= this.early.length;
      this.early = null;
    }
    this.closing = true;
    this.deliver({ sessionId, error });
  }

  private deliver(item: SessionWatchItem): void {
    if (this.push) {
      if (this.budget.revoked) return this.finish();
      this.push(item);
      if (this.closing) this.finish();
      return;
    }
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w({ value: item, done: false });
      return;
    }
    this.queue.push(item);
    this.charge();
  }

  private charge(): void {
    this.budget.pending++;
    if (this.budget.pending > this.budget.limit) this.budget.overflow();
  }

  next(): Promise<IteratorResult<SessionWatchItem>> {
    if (this.budget.revoked) this.finish();
    const event = this.queue.shift();
    if (event) {
      this.budget.pending--;
      return Promise.resolve({ value: event, done: false });
    }
    if (this.done || this.closing) {
      this.finish();
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /**
   * Switches to push mode: what is queued goes to `push` now, in order, and every later event as it
   * is accepted; `onEnd` runs once when the stream ends (terminal status, completion, `return`).
   */
  attach(push: (item: SessionWatchItem) => void, onEnd: () => void): void {
    this.onPushEnd = onEnd;
    if (this.done) return this.finish();
    if (this.budget.revoked) return this.finish();
    for (let e = this.queue.shift(); e; e = this.queue.shift()) {
      this.budget.pending--;
      push(e);
    }
    this.push = push;
    if (this.closing) this.finish();
  }

  return(): Promise<IteratorResult<SessionWatchItem>> {
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Ends the stream gracefully: what is queued is still delivered, then the subscription completes. */
  complete(): void {
    this.closing = true;
    if (this.push || (this.waiter && this.queue.length === 0)) this.finish();
  }

  /** Ends the stream; events already queued are dropped. Idempotent. */
  finish(): void {
    if (!this.done) {
      this.done = true;
      this.push = null;
      this.budget.pending -= this.queue.length + (this.early?.length ?? 0);
      this.queue.length = 0;
      this.early = null;
      this.onEnd();
      if (this.waiter) {
        const w = this.waiter;
        this.waiter = null;
        w({ value: undefined, done: true });
      }
    }
    const pushEnd = this.onPushEnd;
    this.onPushEnd = null;
    pushEnd?.();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<SessionWatchItem> {
    return this;
  }
}
