import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';

/** A source event stream that can also hand its events to a consumer synchronously (StatusSubscriber). */
export interface PushSource<T> extends AsyncIterator<T> {
  /** Every event, queued ones first, goes to `push` in order; `onEnd` runs once when the stream ends. */
  attach(push: (event: T) => void, onEnd: () => void): void;
}

/**
 * Where one subscription's `next` messages go when they bypass graphql-ws's per-message pipeline:
 * `write` sends one complete text frame, `prefix` is the start of this subscription's message up to
 * its payload (`{"id":"<id>","type":"next","payload":`).
 */
export type DirectSink = { prefix: string; write(message: string): void };

export type SharedSubscribeOptions = {
  /** Identifies what the result depends on besides the event: operation, variables, visibility. */
  cacheKeyOf(args: ExecutionArgs): string;
  /** The JSON of one result as graphql-ws would send it (errors formatted). */
  serialize(result: ExecutionResult): string;
  /** The direct sink of a subscription, or undefined to let graphql-ws pull and send every result. */
  sinkOf?(args: ExecutionArgs): DirectSink | undefined;
};

/**
 * One execution, shared by every subscriber with the same event and cache key. Its JSON is a string
 * once known; until then (resolvers that return promises) subscribers wait in `waiters`, and one
 * callback writes to all of them when it settles, instead of one promise chain per subscriber.
 */
type Shared = {
  result: ExecutionResult | PromiseLike<ExecutionResult>;
  json?: string;
  error?: { cause: unknown };
  waiters?: (() => void)[];
};

const isPromiseLike = <T>(v: T | PromiseLike<T>): v is PromiseLike<T> => typeof (v as Partial<PromiseLike<T>> | null)?.then === 'function';
const isPushSource = (s: object): s is PushSource<unknown> => typeof (s as Partial<PushSource<unknown>>).attach === 'function';

/**
 * `subscribe` for graphql-ws that executes the selection once per (event, cache key) instead of once
 * per subscriber. Every subscriber of an instance receives the same event object from the hub, and the
 * selection's result depends only on the event and the cache key (the resolver reads nothing else from
 * the context), so a broadcast to N subscribers costs one execution per distinct query, not N.
 *
 * With a direct sink and a push source, the serialized payload is shared too: each subscriber's
 * message is its prefix + the payload JSON, written to its socket synchronously as the hub routes the
 * event. graphql-ws still runs the rest of the protocol (init, subscribe, errors, ping, `complete`,
 * which it sends when the stream ends, after the last direct message); it only stops pulling one
 * promise chain per subscriber per event. Results live in a WeakMap keyed by the event and go away with it.
 */
export function sharedSubscribe(o: SharedSubscribeOptions) {
  const shared = new WeakMap<object, Map<string, Shared>>();
  const sharedFor = (event: unknown, args: ExecutionArgs, key: string): Shared => {
    if (typeof event !== 'object' || event === null) return { result: execute({ ...args, rootValue: event }) };
    let perEvent = shared.get(event);
    if (!perEvent) shared.set(event, (perEvent = new Map()));
    let s = perEvent.get(key);
    if (!s) perEvent.set(key, (s = { result: execute({ ...args, rootValue: event }) }));
    return s;
  };
  /** Serializes the shared result once; for a pending result, once it settles, then wakes the waiters. */
  const serialized = (s: Shared): Shared => {
    if (s.json !== undefined || s.waiters || s.error !== undefined) return s;
    const result = s.result;
    if (!isPromiseLike(result)) {
      s.json = o.serialize(result);
      return s;
    }
    s.waiters = [];
    Promise.resolve(result)
      .then((r) => (s.json = o.serialize(r)))
      .catch((err: unknown) => (s.error = { cause: err }))
      .finally(() => {
        const waiters = s.waiters ?? [];
        s.waiters = undefined;
        for (const wake of waiters) wake();
      });
    return s;
  };

  return async (args: ExecutionArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> => {
    const stream = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in Object(stream))) return stream as ExecutionResult;
    const source = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    const key = o.cacheKeyOf(args);
    const sink = o.sinkOf?.(args);
    const generator =
      sink && isPushSource(source) ? pushed(source, sink, (event) => serialized(sharedFor(event, args, key))) : pulled(source, (event) => sharedFor(event, args, key).result);
    return generator as unknown as AsyncGenerator<ExecutionResult>;
  };
}

/** graphql-ws pulls each result and sends it (one promise chain per subscriber and event). */
function pulled(source: AsyncIterator<unknown>, resultFor: (event: unknown) => ExecutionResult | PromiseLike<ExecutionResult>) {
  // A plain object with next/return/throw: graphql-ws calls `return()` when the client completes or leaves.
  const generator = {
    async next(): Promise<IteratorResult<ExecutionResult>> {
      const r = await source.next();
      if (r.done) return { value: undefined, done: true };
      return { value: await resultFor(r.value), done: false };
    },
    async return(): Promise<IteratorResult<ExecutionResult>> {
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(err: unknown): Promise<never> {
      await source.return?.();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return generator;
    },
  };
  return generator;
}

/**
 * The source pushes each event straight into the sink; graphql-ws's first `next()` is what attaches
 * it (so graphql-ws has registered the subscription before anything is written) and settles only when
 * the stream ends, after which graphql-ws sends `complete`. A message whose shared result is still
 * pending waits in this subscriber's queue; later ones wait behind it, so the order stays the order
 * of events.
 */
function pushed(source: PushSource<unknown>, sink: DirectSink, sharedOf: (event: unknown) => Shared) {
  let ended: Promise<IteratorResult<ExecutionResult>> | null = null;
  let cancelled = false;
  const attach = (resolve: (r: IteratorResult<ExecutionResult>) => void, reject: (err: Error) => void) => {
    let failed = false;
    let ending = false;
    const queue: Shared[] = [];
    let waitingOn: Shared | null = null;
    // One subscriber's failure must not stop the hub's loop over the others: this subscription ends
    // with a GraphQL error (graphql-ws sends `error`), the rest go on.
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      queue.length = 0;
      reject(err instanceof Error ? err : new Error(String(err)));
      void source.return?.();
    };
    const drain = () => {
      while (queue.length > 0 && !failed) {
        const head = queue[0];
        if (head.error) return fail(head.error.cause);
        if (head.json === undefined) {
          if (waitingOn !== head) head.waiters?.push(wake);
          waitingOn = head;
          return;
        }
        queue.shift();
        if (!cancelled) sink.write(sink.prefix + head.json + '}');
      }
      if (ending && queue.length === 0 && !failed) resolve({ value: undefined, done: true });
    };
    const wake = () => {
      waitingOn = null;
      drain();
    };
    source.attach(
      (event) => {
        if (failed) return;
        try {
          const shared = sharedOf(event);
          if (queue.length === 0 && shared.json !== undefined) return sink.write(sink.prefix + shared.json + '}');
          queue.push(shared);
          if (queue.length === 1) drain();
        } catch (err) {
          fail(err);
        }
      },
      () => {
        ending = true;
        if (cancelled) queue.length = 0;
        drain();
      },
    );
  };
  const generator = {
    next(): Promise<IteratorResult<ExecutionResult>> {
      ended ??= new Promise(attach);
      return ended;
    },
    async return(): Promise<IteratorResult<ExecutionResult>> {
      cancelled = true;
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(err: unknown): Promise<never> {
      cancelled = true;
      await source.return?.();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return generator;
    },
  };
  return generator;
}
