import { TestSocialUpstream } from '../../test/helpers/social-upstream';
import { HttpSocialUpstream, parseNdjson, SocialUpstreamError } from './social-upstream.client';
import { NoSocialUpstream } from './social-upstream';

async function count(it: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of it) n++;
  return n;
}

/** The HTTP adapter against a real local upstream speaking the contract. */
describe('HttpSocialUpstream', () => {
  let upstream: TestSocialUpstream;
  let client: HttpSocialUpstream;

  beforeAll(async () => {
    upstream = await TestSocialUpstream.start({ token: 'upstream-token' });
    client = new HttpSocialUpstream({ baseUrl: upstream.url, token: 'upstream-token', timeoutMs: 60_000 }); // a hang bound only: a loaded machine may take seconds to answer
  });
  afterAll(() => upstream.close());

  it('streams 100,000 posts of one user at the pace of its reader, never fetching ahead of it', async () => {
    upstream.posts.set('usr_big', 100_000);
    upstream.linesWritten = 0;
    let n = 0;
    let aheadWhilePaused = Infinity;
    for await (const post of client.read('usr_big', 'posts')) {
      if (n === 0) expect(post).toMatchObject({ id: 'post_0', author: 'usr_big' });
      n++;
      if (n === 1000) {
        // The reader stops; the upstream can only fill the socket and stream buffers, then waits.
        await new Promise((r) => setTimeout(r, 300));
        aheadWhilePaused = upstream.linesWritten - n;
      }
    }
    expect(n).toBe(100_000);
    // Socket and stream buffers hold a few MB (about 20,000 lines here), not the 19 MB of the whole collection.
    expect(aheadWhilePaused).toBeLessThan(50_000);
  });

  it('reads every collection, and an unknown user as empty', async () => {
    for (const c of ['comments', 'likes', 'follows', 'messages'] as const) expect(await count(client.read('usr_small', c))).toBe(3);
    expect(await count(client.read('usr_nobody', 'posts'))).toBe(0);
  });

  it('passes erasure and objection on with the request id, and sends the bearer token', async () => {
    upstream.calls.length = 0;
    await client.erase('usr_a', { dsrId: 'dsr_1' });
    await client.object('usr_a', 'feed_ranking', { dsrId: 'dsr_2' });
    expect(upstream.calls.map((c) => [c.method, c.path, JSON.parse(c.body), c.authorization])).toEqual([
      ['POST', '/data-rights/v1/users/usr_a/erasure', { dsr_id: 'dsr_1' }, 'Bearer upstream-token'],
      ['POST', '/data-rights/v1/users/usr_a/objections', { dsr_id: 'dsr_2', processing: 'feed_ranking' }, 'Bearer upstream-token'],
    ]);
  });

  it('throws on an upstream failure, so the job retries instead of exporting a partial file', async () => {
    upstream.failWith = 503;
    try {
      await expect(count(client.read('usr_big', 'posts'))).rejects.toThrow(SocialUpstreamError);
      await expect(client.erase('usr_a', { dsrId: 'dsr_3' })).rejects.toThrow('answered 503');
    } finally {
      upstream.failWith = null;
    }
  });

  it('throws when the upstream cannot be reached', async () => {
    const down = new HttpSocialUpstream({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2000 });
    await expect(down.erase('usr_a', { dsrId: 'dsr_4' })).rejects.toThrow(SocialUpstreamError);
  });
});

describe('parseNdjson', () => {
  const stream = (...parts: string[]) => (async function* () {
    for (const p of parts) yield Buffer.from(p);
  })();

  it('joins lines split across chunks and skips blank lines', async () => {
    const out = [];
    for await (const r of parseNdjson(stream('{"a":1}\n{"b"', ':2}\n\n{"c":3}'), 'test')) out.push(r);
    expect(out).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('refuses a line that is not a JSON object', async () => {
    await expect(count(parseNdjson(stream('{"a":1}\n[1,2]\n'), 'test'))).rejects.toThrow('line 2 of the test is not a JSON object');
    await expect(count(parseNdjson(stream('nope\n'), 'test'))).rejects.toThrow('not JSON');
  });

  it('refuses a line longer than 1 MiB before reading it whole', async () => {
    const chunk = 'x'.repeat(256 * 1024);
    await expect(count(parseNdjson(stream('{"a":"', chunk, chunk, chunk, chunk, chunk), 'test'))).rejects.toThrow('longer than');
  });
});

describe('NoSocialUpstream', () => {
  it('reads nothing and accepts erasure and objection', async () => {
    const none = new NoSocialUpstream();
    expect(await count(none.read())).toBe(0);
    await expect(none.erase()).resolves.toBeUndefined();
  });
});
