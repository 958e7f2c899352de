import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';

/**
 * `subscribe` for graphql-ws that executes the selection once per (event, operation) instead of once
 * per subscriber. Every subscriber of an instance receives the same event object from the hub, and the
 * selection's result depends only on the event and the operation text and variables (the resolver
 * reads nothing from the context), so a broadcast to N subscribers costs one execution per distinct
 * query, not N. Results are kept in a WeakMap keyed by the event and go away with it.
 */
export function sharedSubscribe(cacheKeyOf: (args: ExecutionArgs) => string) {
  const results = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
  return async (args: ExecutionArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> => {
    const stream = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in Object(stream))) return stream as ExecutionResult;
    const source = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    const key = cacheKeyOf(args);
    const resultFor = (event: unknown): Promise<ExecutionResult> => {
      if (typeof event !== 'object' || event === null) return Promise.resolve(execute({ ...args, rootValue: event }));
      let perEvent = results.get(event);
      if (!perEvent) results.set(event, (perEvent = new Map()));
      let result = perEvent.get(key);
      if (!result) perEvent.set(key, (result = Promise.resolve(execute({ ...args, rootValue: event }))));
      return result;
    };
    // A plain object with next/return/throw: graphql-ws calls `return()` when the client completes or leaves.
    const generator = {
      async next() {
        const r = await source.next();
        if (r.done) return { value: undefined, done: true };
        return { value: await resultFor(r.value), done: false };
      },
      async return() {
        await source.return?.();
        return { value: undefined, done: true };
      },
      async throw(err: unknown) {
        await source.return?.();
        throw err;
      },
      [Symbol.asyncIterator]() {
        return generator;
      },
    };
    return generator as unknown as AsyncGenerator<ExecutionResult>;
  };
}
