import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { sharedSubscribe, type PushSource } from './shared-execution';

/** A schema whose subscription yields the given event objects and counts how often its field resolves. */
function schemaOver(events: object[]) {
  let resolved = 0;
  const Event = new GraphQLObjectType({ name: 'Event', fields: { name: { type: GraphQLString, resolve: (e: { name: string }) => (resolved++, e.name) } } });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        events: {
          type: Event,
          subscribe: async function* () {
            for (const e of events) yield e;
          },
          resolve: (e: object) => e,
        },
      },
    }),
  });
  return { schema, resolved: () => resolved };
}

async function collect(stream: AsyncGenerator<ExecutionResult> | ExecutionResult): Promise<ExecutionResult[]> {
  const out: ExecutionResult[] = [];
  for await (const r of stream as AsyncGenerator<ExecutionResult>) out.push(r);
  return out;
}

describe('sharedSubscribe', () => {
  it('executes the selection once per event for every subscriber with the same operation', async () => {
    const events = [{ name: 'a' }, { name: 'b' }];
    const { schema, resolved } = schemaOver(events);
    const subscribe = sharedSubscribe({ cacheKeyOf: () => 'same', serialize: JSON.stringify });
    const args = (): ExecutionArgs => ({ schema, document: parse('subscription { events { name } }') });
    const [one, two] = await Promise.all([collect(await subscribe(args())), collect(await subscribe(args()))]);
    expect(one).toEqual([{ data: { events: { name: 'a' } } }, { data: { events: { name: 'b' } } }]);
    expect(two).toEqual(one);
    expect(resolved()).toBe(2);
  });

  it('executes separately for a different operation on the same event', async () => {
    const { schema, resolved } = schemaOver([{ name: 'a' }]);
    let n = 0;
    const subscribe = sharedSubscribe({ cacheKeyOf: () => String(n++), serialize: JSON.stringify });
    await collect(await subscribe({ schema, document: parse('subscription { events { name } }') }));
    await collect(await subscribe({ schema, document: parse('subscription { events { name } }') }));
    expect(resolved()).toBe(2);
  });

  it.each([
    ['synchronous', false],
    ['asynchronous', true],
  ])('pushes each event to every direct sink as one shared serialized payload, then ends (%s resolvers)', async (_, async) => {
    // A push source like the hub's StatusSubscriber: events arrive through `emit`, synchronously.
    const sources: { push: (e: object) => void; end: () => void }[] = [];
    const pushSource = (): PushSource<object> => {
      const s = {
        next: () => new Promise<IteratorResult<object>>(() => {}),
        return: async () => (s.end(), { value: undefined, done: true as const }),
        attach: (push: (e: object) => void, end: () => void) => void sources.push({ push, end }),
        end: () => {},
        [Symbol.asyncIterator]: () => s,
      };
      return s;
    };
    let resolved = 0;
    const Event = new GraphQLObjectType({ name: 'Event', fields: { name: { type: GraphQLString, resolve: (e: { name: string }) => (resolved++, async ? Promise.resolve(e.name) : e.name) } } });
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
      subscription: new GraphQLObjectType({ name: 'Subscription', fields: { events: { type: Event, subscribe: pushSource, resolve: (e: object) => e } } }),
    });
    let serialized = 0;
    const written: string[][] = [[], [], []];
    const subscribe = sharedSubscribe({
      cacheKeyOf: () => 'same',
      serialize: (r) => (serialized++, JSON.stringify(r)),
      sinkOf: (args) => {
        const i = (args.contextValue as { i: number }).i;
        return { prefix: `{"id":"${i}","type":"next","payload":`, write: (m) => written[i].push(m) };
      },
    });
    const document = parse('subscription { events { name } }');
    const streams = await Promise.all([0, 1, 2].map(async (i) => (await subscribe({ schema, document, contextValue: { i } })) as AsyncGenerator<ExecutionResult>));
    const ended = streams.map((s) => s.next()); // graphql-ws's first pull attaches the sink
    const a = { name: 'a' };
    for (const s of sources) s.push(a);
    for (const s of sources) s.push({ name: 'b' });
    await new Promise((r) => setImmediate(r)); // asynchronous results are written once they settle, in order
    // One shared event object is executed and serialized once; a distinct object per sink is executed per sink.
    expect(written).toEqual([0, 1, 2].map((i) => [`{"id":"${i}","type":"next","payload":{"data":{"events":{"name":"a"}}}}`, `{"id":"${i}","type":"next","payload":{"data":{"events":{"name":"b"}}}}`]));
    expect(resolved).toBe(4);
    expect(serialized).toBe(4);
    // A stream that ends right after its last event (a terminal status) still writes it first.
    sources[0].push({ name: 'c' });
    for (const s of sources) s.end();
    expect(await Promise.all(ended)).toEqual([0, 1, 2].map(() => ({ value: undefined, done: true })));
    expect(written[0].at(-1)).toBe('{"id":"0","type":"next","payload":{"data":{"events":{"name":"c"}}}}');
  });
});
