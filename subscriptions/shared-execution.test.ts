import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { sharedSubscribe } from './shared-execution';

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
    const subscribe = sharedSubscribe(() => 'same');
    const args = (): ExecutionArgs => ({ schema, document: parse('subscription { events { name } }') });
    const [one, two] = await Promise.all([collect(await subscribe(args())), collect(await subscribe(args()))]);
    expect(one).toEqual([{ data: { events: { name: 'a' } } }, { data: { events: { name: 'b' } } }]);
    expect(two).toEqual(one);
    expect(resolved()).toBe(2);
  });

  it('executes separately for a different operation on the same event', async () => {
    const { schema, resolved } = schemaOver([{ name: 'a' }]);
    let n = 0;
    const subscribe = sharedSubscribe(() => String(n++));
    await collect(await subscribe({ schema, document: parse('subscription { events { name } }') }));
    await collect(await subscribe({ schema, document: parse('subscription { events { name } }') }));
    expect(resolved()).toBe(2);
  });
});
