import { execFileSync, spawnSync } from 'node:child_process';
import { cli, createTenant, eventually, http, loggedLine, HttpResult, startServer, Tenant, testEnv, TestServer } from '../helpers/test-server';

/**
 * Two server instances sharing one Redis that this file starts on its own port, so it can stop
 * and restart it (the suite's shared Redis is never touched). Both instances also share one
 * database: the same DATABASE_URL, or the first instance's embedded socket in the same DATA_DIR.
 */

/** This file runs its own redis-server (it stops and restarts it), so it needs the binary; without it, it is skipped. */
const haveRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
if (!haveRedisServer) console.info('rate-limit.redis: skipped, redis-server is not installed (apt-get install redis-server)');

// Below Linux's ephemeral range (32768+), where an outgoing connection could already hold the port.
const pickPort = () => 20_000 + Math.floor(Math.random() * 12_000);
let REDIS_PORT = pickPort();
const redisUp = () => execFileSync('redis-server', ['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
const redisDown = () => execFileSync('redis-cli', ['-p', String(REDIS_PORT), 'shutdown', 'nosave']);
const redisPing = (): boolean => {
  try {
    return execFileSync('redis-cli', ['-p', String(REDIS_PORT), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() === 'PONG';
  } catch {
    return false;
  }
};

/** What Redis holds for one counter of the server with `env`: the sum of its 5 s slices (src/rate-limit/slice-store.ts). */
const sharedCount = (env: NodeJS.ProcessEnv, counter: string): number => {
  const redis = (...args: string[]) => execFileSync('redis-cli', ['-p', String(REDIS_PORT), ...args]).toString().trim();
  const keys = redis('--scan', '--pattern', `${env.RATE_LIMIT_REDIS_PREFIX}:${counter}:*`).split('\n').filter(Boolean);
  return keys.length ? redis('MGET', ...keys).split('\n').reduce((sum, v) => sum + (Number(v) || 0), 0) : 0;
};

(haveRedisServer ? describe : describe.skip)('two instances on a Redis this file starts', () => {
  let a: TestServer;
  let b: TestServer;
  let tenant: Tenant;

  beforeAll(async () => {
    // A port another process took meanwhile leaves the daemon unable to bind: try another.
    for (let attempt = 1; ; attempt++) {
      redisUp();
      try {
        await eventually(async () => (redisPing() ? true : undefined), 60_000, 50);
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        REDIS_PORT = pickPort();
      }
    }
    const env = testEnv({ REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}` });
    a = await startServer(env);
    b = await startServer(env);
    tenant = await createTenant(a, 'shared-redis');
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (redisPing()) redisDown();
  });

  async function awayFromWindowEdge(): Promise<void> {
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 54_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 200));
  }

  async function newKey(tenantId = tenant.tenant_id): Promise<string> {
    const r = await cli(a.env, ['key', 'create', '--tenant', tenantId, '--mode', 'test', '--json']);
    return r.json!.api_key as string;
  }

  /** `n` requests to bulk-import (limit 5), alternating between the instances, all at once. */
  function alternate(n: number, key: string): Promise<HttpResult[]> {
    return Promise.all(Array.from({ length: n }, (_, i) => http(i % 2 ? b : a, 'POST', '/v1/admin/bulk-import', { key, json: {} })));
  }
  const admittedOf = (rs: HttpResult[]) => rs.filter((r) => r.status !== 429).length;
  /** How many answers of each status: an admitted request must be a 400 (its empty body refused), never a failure. */
  const statusCounts = (rs: HttpResult[]) => rs.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

  it('admits exactly the limit across two instances on one Redis', async () => {
    await awayFromWindowEdge();
    const key = await newKey();
    const rs = await Promise.all(
      Array.from({ length: 100 }, (_, i) => http(i % 2 ? b : a, 'POST', '/v1/verify/sessions', { key, json: {} })),
    );
    expect(statusCounts(rs)).toEqual({ 400: 60, 429: 40 }); // admitted, the body then refused
    expect(new Set(rs.filter((r) => r.status === 429).map((r) => r.body.bucket))).toEqual(new Set(['verify_create']));
  });

  it('admits exactly the limit when an instance is paused past the Redis deadline while its charges are answered', async () => {
    // A process the machine does not run for 700 ms (SIGSTOP: as a long collection or a loaded CPU does) wakes
    // with Redis's answers in its sockets and the 500 ms deadline of the charges they answer overdue. The
    // answers count: had the deadline been called first, the instance would admit from its own insurance count.
    await awayFromWindowEdge();
    const key = await newKey();
    const pid = a.proc.pid!;
    let sending = true;
    const pauses = (async () => {
      while (sending) {
        await new Promise((r) => setTimeout(r, 15));
        process.kill(pid, 'SIGSTOP');
        await new Promise((r) => setTimeout(r, 700));
        process.kill(pid, 'SIGCONT');
      }
    })();
    const rs = await Promise.all(
      Array.from({ length: 120 }, (_, i) => new Promise((r) => setTimeout(r, i * 10)).then(() => http(i % 2 ? b : a, 'POST', '/v1/verify/sessions', { key, json: {} }))),
    ).finally(() => (sending = false));
    await pauses;
    expect(statusCounts(rs)).toEqual({ 400: 60, 429: 60 }); // admitted, the body then refused
  });

  /** `total` reads of a missing session (verify_read; a 404 is metered) from `workers` clients at once, alternating instances. */
  async function hammer(key: string, total: number, workers = 16): Promise<HttpResult[]> {
    const results: HttpResult[] = [];
    let sent = 0;
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (sent < total) {
          const server = sent++ % 2 ? b : a;
          results.push(await http(server, 'GET', '/v1/verify/sessions/vses_0000000000000000000000aa', { key }));
        }
      }),
    );
    return results;
  }

  describe('a busy key (each instance leases units ahead of its requests)', () => {
    let busy: Tenant;
    beforeAll(async () => {
      busy = await createTenant(a, 'busy-key');
      await cli(a.env, ['limits', 'set', '--tenant', busy.tenant_id, '--bucket', 'verify_read', '--limit', '1500', '--json']);
      await eventually(async () => ((await http(b, 'GET', '/v1/verify/sessions', { key: busy.test_api_key })).headers.get('ratelimit-limit') === '1500' ? true : undefined), 60_000, 50);
    });

    it('admits exactly the limit under sustained load on both instances', async () => {
      const key = await newKey(busy.tenant_id);
      const rs = await hammer(key, 2_000);
      const admitted = rs.filter((r) => r.status !== 429);
      expect(admitted).toHaveLength(1_500);
      expect(admitted.every((r) => r.status === 404 && Number(r.headers.get('ratelimit-remaining')) >= 0)).toBe(true);
      expect(rs.filter((r) => r.status === 429).every((r) => r.body.bucket === 'verify_read' && r.headers.get('ratelimit-remaining') === '0')).toBe(true);
    });

    it('gives units one instance leased but did not use back to the shared count within about a second', async () => {
      const made = await cli(a.env, ['key', 'create', '--tenant', busy.tenant_id, '--mode', 'test', '--json']);
      const key = made.json!.api_key as string;
      await hammer(key, 1_000);
      // Right after the load each instance may still hold a few leased units; once they are given back (each lease by
      // its own 1 s timer), the count every instance sees is exactly the requests made. The test watches that count
      // in Redis itself (a poll through the server would be metered and lease again), as long as a loaded machine needs.
      await eventually(async () => (sharedCount(a.env, `verify_read:key:${made.json!.key_id}`) === 1_000 ? true : undefined), 60_000, 200);
      const next = await http(b, 'GET', '/v1/verify/sessions/vses_0000000000000000000000aa', { key });
      expect(next.headers.get('ratelimit-remaining')).toBe(String(1_500 - 1_001));
    });
  });

  it('falls back to a per-instance in-memory limit while Redis is down, and shares counts again when it is back', async () => {
    await awayFromWindowEdge();
    redisDown();
    await eventually(async () => (redisPing() ? undefined : true), 60_000, 50);

    // Down: each instance enforces the limit alone, so the key gets the limit once per instance,
    // never an open door, and no request waits on the dead Redis.
    // Answered while Redis is still down: a request that waited on Redis would still be waiting (the test's
    // ceiling ends it), so no timing is needed to show that none does.
    const key = await newKey();
    const onA = await Promise.all(Array.from({ length: 8 }, () => http(a, 'POST', '/v1/admin/bulk-import', { key, json: {} })));
    const onB = await Promise.all(Array.from({ length: 8 }, () => http(b, 'POST', '/v1/admin/bulk-import', { key, json: {} })));
    expect(admittedOf(onA)).toBe(5);
    expect(admittedOf(onB)).toBe(5);
    expect(onA.find((r) => r.status === 429)?.body.bucket).toBe('bulk_import');
    await loggedLine(a, 'using the in-memory insurance limiter');

    redisUp();
    await eventually(async () => (a.logs.join('\n').includes('Redis is back') && b.logs.join('\n').includes('Redis is back') ? true : undefined), 60_000, 100);
    const fresh = await newKey();
    expect(admittedOf(await alternate(12, fresh))).toBe(5);
  });
});
