import { CoalescingReader } from './coalescing-reader';

/** A load whose answers the test releases by hand, recording what each query asked for and the state it read. */
function controlledLoad(state: Map<string, number>) {
  const calls: { keys: string[]; release(): void }[] = [];
  const load = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve) => {
      calls.push({
        keys,
        // The "query" reads the state when it is released, as a database would at its snapshot.
        release: () => resolve(new Map(keys.filter((k) => state.has(k)).map((k) => [k, state.get(k)!]))),
      });
    });
  return { calls, load };
}

// The reader schedules its queries with setImmediate, faked here: `turn()` runs everything it has
// scheduled (and the promise callbacks in between) until it is waiting on a query, with no wall clock.
const turn = () => jest.runAllTimersAsync();

describe('CoalescingReader', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('answers the reads of one turn with one query, each caller with its own key', async () => {
    const state = new Map([['a', 1], ['b', 2]]);
    const { calls, load } = controlledLoad(state);
    const reader = new CoalescingReader<string, number>(load, (k) => k);
    const reads = [reader.read('a'), reader.read('b'), reader.read('a'), reader.read('missing')];
    await turn();
    expect(calls.map((c) => c.keys)).toEqual([['a', 'b', 'missing']]);
    calls[0].release();
    expect(await Promise.all(reads)).toEqual([1, 2, 1, undefined]);
  });

  it('never answers a read with a query that started before it was asked', async () => {
    const state = new Map([['k', 1]]);
    const { calls, load } = controlledLoad(state);
    const reader = new CoalescingReader<string, number>(load, (k) => k);
    const early = reader.read('k');
    await turn(); // the first query is now in flight
    expect(calls).toHaveLength(1);
    state.set('k', 2); // a change committed while it runs...
    const late = reader.read('k'); // ...then a read asked after it
    await turn();
    expect(calls).toHaveLength(1); // waits for the query in flight instead of joining it
    calls[0].release();
    await turn();
    expect(calls).toHaveLength(2);
    calls[1].release();
    expect(await late).toBe(2);
    expect(await early).toBe(2); // the first query read at its release, after the change too
  });

  it('rejects every read of a failed query, and the next reads still work', async () => {
    let fail = true;
    const reader = new CoalescingReader<string, number>(async (keys) => {
      if (fail) throw new Error('database down');
      return new Map(keys.map((k) => [k, 7]));
    }, (k) => k);
    const failed = expect(Promise.all([reader.read('x'), reader.read('y')])).rejects.toThrow('database down');
    await turn();
    await failed;
    fail = false;
    const next = reader.read('x');
    await turn();
    expect(await next).toBe(7);
  });
});
