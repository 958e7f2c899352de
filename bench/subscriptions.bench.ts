/**
 * Live session status (docs/benchmarks.md, "Subscriptions"): N concurrent WebSocket subscribers, loopback only.
 *
 * For each N (BENCH_SUBSCRIBERS, default 1000,5000,10000), on one instance, and on two instances
 * sharing PostgreSQL and Redis when DATABASE_URL and REDIS_URL are set (subscribers split evenly,
 * every transition committed on instance A):
 *   - sample:    each connection watches one of BENCH_SESSIONS live sessions by id (N/S watchers
 *                each); every session is then cancelled once (paced), one status change each.
 *   - broadcast: every connection then watches the tenant without an id; BENCH_BROADCASTS sessions
 *                are created, each CREATED event reaching all N subscribers at once.
 * Latency runs from the commit side to the receipt of the event. The commit side is the time stamped
 * inside the committing transaction, just before its commit: the session's createdAt (broadcast) and
 * the outbox row's created_at (sample; read from PostgreSQL when DATABASE_URL is set, otherwise the
 * moment the cancelling request was sent, an upper bound that includes the HTTP request). The cancel
 * requests' own round trip is reported beside it. Server RSS is sampled every
 * 100 ms (peak reported); CPU is the server's user+system time during the delivery phase.
 * The subscriber sockets live in BENCH_CLIENT_WORKERS worker threads (default 2), not in this
 * coordinating thread: with all 10,000 in one thread, reading them is itself a queue, and the last
 * receipt measures the client's parsing as much as the server. Receipts are stamped in the reading
 * thread with performance.timeOrigin + performance.now() (wall clock, comparable across threads).
 * On a 2-core machine the client threads still share the CPU with the server under test.
 * The in-run baseline is the first (smallest) N on one instance; ratios are against its p99.
 *
 *   npm run bench:subscriptions
 *   BENCH_SUBSCRIBERS=1000,5000,10000 BENCH_SESSIONS=200 BENCH_BROADCASTS=3 \
 *     DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 npm run bench:subscriptions
 */
import { ChildProcess, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Client } from 'pg';
import { startProcess } from './bench-support';
import type { ClientRequest, Match, Receipt } from './subscription-clients';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'app', 'cli.js');
const SUBSCRIBERS = (process.env.BENCH_SUBSCRIBERS ?? '1000,5000,10000').split(',').map(Number).filter((n) => n > 0);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200);
const BROADCASTS = Number(process.env.BENCH_BROADCASTS ?? 3);
const CONNECT_CONCURRENCY = 200;
const PHASE_TIMEOUT_MS = 60_000;
/** Threads holding the subscriber sockets (see subscription-clients.ts). */
const CLIENT_WORKERS = Number(process.env.BENCH_CLIENT_WORKERS ?? 2);
const SHARED = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
/** Which setups to run: `single`, `redis` or both (default). */
const SETUPS = (process.env.BENCH_SETUPS ?? 'single,redis').split(',');

type Server = { url: string; env: NodeJS.ProcessEnv; proc: ChildProcess; stop(): Promise<void> };

function serverEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'subs-bench-')),
    LOG_LEVEL: 'warn',
    PORT: '0',
    RATE_LIMIT_ENABLED: 'false',
    SUBSCRIPTION_MAX_CONNECTIONS_PER_KEY: '1000000',
    ...extra,
  };
}

/**
 * A server with its logs in a file (bench-support), so no busy pipe into this process stands between
 * it and its log writes. BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") reach it
 * as NODE_OPTIONS, to profile the servers.
 */
async function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const nodeOptions = process.env.BENCH_SERVER_NODE_ARGS;
  const started = await startProcess('app/main.js', { ...env, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) });
  let stopping = false;
  started.proc.once('exit', (code, signal) => {
    if (!stopping) console.error(`server ${started.proc.pid} exited unexpectedly (${code ?? signal})`);
  });
  return {
    url: started.url,
    env: { ...env, PORT: new URL(started.url).port },
    proc: started.proc,
    stop: () => {
      stopping = true;
      return started.stop();
    },
  };
}

function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<Record<string, any>> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CLI, ...args, '--json'], { env, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(JSON.parse(stdout)))),
  );
}

async function gql(url: string, key: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** CPU seconds (user+system) and RSS of a process, from /proc. */
function procStats(pid: number): { cpuSeconds: number; rssMb: number } {
  if (!fs.existsSync(`/proc/${pid}/stat`)) return { cpuSeconds: 0, rssMb: 0 }; // exited (reported on its own)
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { cpuSeconds: ticks / 100, rssMb: rssKb / 1024 };
}

/**
 * The subscriber sockets, spread over BENCH_CLIENT_WORKERS worker threads (subscription-clients.ts).
 * Every receipt is stamped in the thread that owns the socket, with the wall clock at high resolution.
 */
class ClientPool {
  private readonly workers: Worker[];
  private readonly waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private calls = 0;

  constructor(size: number) {
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(path.join(__dirname, 'subscription-clients.js'));
      w.on('message', (m: { call: number; result?: unknown; error?: string }) => {
        const p = this.waiting.get(m.call);
        this.waiting.delete(m.call);
        if (m.error !== undefined) p?.reject(new Error(m.error));
        else p?.resolve(m.result);
      });
      w.on('error', (err) => console.error('client worker failed', err));
      return w;
    });
  }

  private ask<T>(w: Worker, req: ClientRequest): Promise<T> {
    const call = ++this.calls;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(call, { resolve, reject });
      w.postMessage({ call, ...req });
    });
  }

  /** Every worker, each with its own request (`perWorker(w)`); results in worker order. */
  all<T>(perWorker: (w: number) => ClientRequest): Promise<T[]> {
    return Promise.all(this.workers.map((w, i) => this.ask<T>(w, perWorker(i))));
  }

  /** Subscriber i connects to urls[i % urls.length] and watches sessions[i % sessions.length]; worker w holds every i with i % size == w. */
  async open(urls: string[], key: string, sessions: string[], n: number): Promise<void> {
    const size = this.workers.length;
    await this.all((w) => ({
      op: 'open',
      urls,
      key,
      sessions,
      indices: Array.from({ length: Math.ceil((n - w) / size) }, (_, k) => w + k * size),
      concurrency: Math.max(1, Math.floor(CONNECT_CONCURRENCY / size)),
      timeoutMs: PHASE_TIMEOUT_MS * 2,
    }));
  }

  subscribeAll(id: string | null): Promise<unknown> {
    return this.all(() => ({ op: 'subscribeAll', id }));
  }

  waitAll(match: Match, timeoutMs = PHASE_TIMEOUT_MS): Promise<unknown> {
    return this.all(() => ({ op: 'waitAll', match, timeoutMs }));
  }

  async receipts(match: Match): Promise<Receipt[]> {
    return (await this.all<Receipt[]>(() => ({ op: 'receipts', match }))).flat();
  }

  close(): Promise<unknown> {
    return this.all(() => ({ op: 'close' }));
  }

  terminate(): Promise<unknown> {
    return Promise.all(this.workers.map((w) => w.terminate()));
  }
}

async function inBatches<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

/** When each session's withdrawal was stamped in its transaction, from the outbox (real PostgreSQL only). */
async function outboxTimes(sessionIds: string[]): Promise<Map<string, number> | null> {
  if (!process.env.DATABASE_URL) return null;
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    const { rows } = await db.query<{ session_id: string; ms: string }>(
      `SELECT session_id, (EXTRACT(EPOCH FROM created_at) * 1000)::text AS ms FROM outbox_events
        WHERE type = 'session.status_changed' AND payload->>'status' = 'withdrawn' AND session_id = ANY($1)`,
      [sessionIds],
    );
    return new Map(rows.map((r) => [r.session_id, Number(r.ms)]));
  } finally {
    await db.end();
  }
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

type Result = {
  setup: string;
  n: number;
  sampleP50: number;
  sampleP99: number;
  mutationP50: number;
  mutationP99: number;
  broadcastP50: number;
  broadcastP99: number;
  deliveries: number;
  connectSeconds: number;
  peakRssMb: number;
  idleRssMb: number;
  deliveryCpuSeconds: number;
  deliverySeconds: number;
  /** Median over the measured broadcasts of the servers' CPU time for one (from /proc, 10 ms ticks). */
  broadcastCpuMs: number;
};

async function run(setup: string, servers: Server[], n: number): Promise<Result> {
  const [a] = servers;
  const tenant = await cli(a.env, ['tenant', 'create', '--name', `bench-${n}`]);
  const key = tenant.live_api_key as string;
  const sessions = await inBatches(Math.min(SESSIONS, n), 10, async () => (await gql(a.url, key, 'mutation { createSession(input: { flowId: "default", tier: T1 }) { id } }')).createSession.id as string);

  const pids = servers.map((s) => s.proc.pid!);
  const idleRss = pids.reduce((sum, pid) => sum + procStats(pid).rssMb, 0);
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, pids.reduce((sum, pid) => sum + procStats(pid).rssMb, 0));
  }, 100);

  const t0 = Date.now();
  const clients = new ClientPool(CLIENT_WORKERS);
  try {
    await clients.open(servers.map((s) => s.url), key, sessions, n);
    const connectSeconds = (Date.now() - t0) / 1000;

    const cpuBefore = pids.map((pid) => procStats(pid).cpuSeconds);
    const tDelivery = Date.now();

    // Sample: cancel every session once, paced (20 in flight), remembering when each request left.
    const sentAt = new Map<string, number>();
    const rtt: number[] = [];
    await inBatches(sessions.length, 20, async (i) => {
      const sent = performance.timeOrigin + performance.now();
      sentAt.set(sessions[i], sent);
      await gql(a.url, key, 'mutation ($id: ID!) { cancelSession(id: $id) { status } }', { id: sessions[i] });
      rtt.push(performance.timeOrigin + performance.now() - sent);
    });
    rtt.sort((x, y) => x - y);
    await clients.waitAll({ status: 'WITHDRAWN' });
    // With a reachable PostgreSQL, the commit side is the outbox row's created_at (stamped in the
    // committing transaction); with the embedded one, the moment the request was sent (an upper bound).
    const committedAt = (await outboxTimes(sessions)) ?? sentAt;
    const sample = (await clients.receipts({ status: 'WITHDRAWN' })).map((r) => r.at - committedAt.get(r.sessionId)!).sort((x, y) => x - y);

    // Broadcast: every connection watches the whole tenant; each new session reaches all of them.
    await clients.subscribeAll(null);
    // A first, unmeasured broadcast proves every tenant-wide subscription is registered (a subscription
    // registered late misses it, so try again with a new session until one reaches every connection).
    for (let attempt = 0; ; attempt++) {
      const id = (await gql(a.url, key, 'mutation { createSession(input: { flowId: "default", tier: T1 }) { id } }')).createSession.id as string;
      try {
        await clients.waitAll({ sessionId: id }, 5000);
        break;
      } catch (err) {
        if (attempt >= 10) throw err;
      }
    }
    const broadcast: number[] = [];
    const broadcastCpuMs: number[] = [];
    for (let b = 0; b < BROADCASTS; b++) {
      const cpuAt = pids.map((pid) => procStats(pid).cpuSeconds);
      const id = (await gql(a.url, key, 'mutation { createSession(input: { flowId: "default", tier: T1 }) { id } }')).createSession.id as string;
      await clients.waitAll({ sessionId: id });
      // The servers' CPU for one broadcast (its createSession request included): steadier than
      // latency on a shared machine, where the server also waits for a core.
      broadcastCpuMs.push(pids.reduce((sum, pid, i) => sum + procStats(pid).cpuSeconds - cpuAt[i], 0) * 1000);
      // createdAt is stamped inside the creating transaction, just before its commit: a commit-side clock.
      for (const r of await clients.receipts({ sessionId: id })) broadcast.push(r.at - Date.parse(r.createdAt));
    }
    broadcast.sort((x, y) => x - y);
    const deliverySeconds = (Date.now() - tDelivery) / 1000;
    const deliveryCpuSeconds = pids.reduce((sum, pid, i) => sum + procStats(pid).cpuSeconds - cpuBefore[i], 0);
    clearInterval(sampler);
    await clients.close();
    return {
      setup,
      n,
      sampleP50: pct(sample, 50),
      sampleP99: pct(sample, 99),
      mutationP50: pct(rtt, 50),
      mutationP99: pct(rtt, 99),
      broadcastP50: pct(broadcast, 50),
      broadcastP99: pct(broadcast, 99),
      deliveries: sample.length + broadcast.length,
      connectSeconds,
      peakRssMb: peakRss,
      idleRssMb: idleRss,
      deliveryCpuSeconds,
      deliverySeconds,
      broadcastCpuMs: broadcastCpuMs.sort((x, y) => x - y)[Math.floor(broadcastCpuMs.length / 2)],
    };
  } finally {
    clearInterval(sampler);
    await clients.terminate();
  }
}

async function main(): Promise<void> {
  const results: Result[] = [];
  for (const n of SETUPS.includes('single') ? SUBSCRIBERS : []) {
    const server = await startServer(serverEnv(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}));
    try {
      results.push(await run(process.env.DATABASE_URL ? '1 instance (PostgreSQL, in-process bus)' : '1 instance (embedded, in-process bus)', [server], n));
    } finally {
      await server.stop();
    }
    print(results.at(-1)!, results[0]);
  }
  if (!SETUPS.includes('redis')) {
    // skipped on request
  } else if (!SHARED) {
    console.log('\n2 instances on Redis: skipped (set DATABASE_URL and REDIS_URL to a shared PostgreSQL and Redis)');
  } else {
    for (const n of SUBSCRIBERS) {
      const shared = () => serverEnv({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL });
      const servers = await Promise.all([startServer(shared()), startServer(shared())]);
      try {
        results.push(await run('2 instances (PostgreSQL + Redis)', servers, n));
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
      print(results.at(-1)!, results[0]);
    }
  }
  console.log('\nsummary (ms; RSS summed over instances; ratio = p99 / baseline p99)');
  console.table(
    results.map((r) => ({
      setup: r.setup,
      subscribers: r.n,
      'sample p50': r.sampleP50.toFixed(1),
      'sample p99': r.sampleP99.toFixed(1),
      'cancel RTT p50/p99': `${r.mutationP50.toFixed(0)}/${r.mutationP99.toFixed(0)}`,
      'broadcast p50': r.broadcastP50.toFixed(1),
      'broadcast p99': r.broadcastP99.toFixed(1),
      'CPU ms/broadcast': r.broadcastCpuMs.toFixed(0),
      'p99 ratio': (Math.max(r.sampleP99, r.broadcastP99) / Math.max(results[0].sampleP99, results[0].broadcastP99)).toFixed(2),
      'RSS MB idle/peak': `${r.idleRssMb.toFixed(0)}/${r.peakRssMb.toFixed(0)}`,
      'CPU s (delivery)': `${r.deliveryCpuSeconds.toFixed(2)} / ${r.deliverySeconds.toFixed(1)} wall`,
      'connect s': r.connectSeconds.toFixed(1),
    })),
  );
}

function print(r: Result, baseline: Result): void {
  console.log(
    `${r.setup}, N=${r.n}: sample p50 ${r.sampleP50.toFixed(1)} ms p99 ${r.sampleP99.toFixed(1)} ms (cancel RTT p50 ${r.mutationP50.toFixed(1)} p99 ${r.mutationP99.toFixed(1)}); broadcast p50 ${r.broadcastP50.toFixed(1)} ms p99 ${r.broadcastP99.toFixed(1)} ms (server CPU ${r.broadcastCpuMs.toFixed(0)} ms each); ` +
      `${r.deliveries} deliveries; RSS ${r.idleRssMb.toFixed(0)} MB idle, ${r.peakRssMb.toFixed(0)} MB peak; CPU ${r.deliveryCpuSeconds.toFixed(2)} s over ${r.deliverySeconds.toFixed(1)} s; ` +
      `connect ${r.connectSeconds.toFixed(1)} s; p99 x${(Math.max(r.sampleP99, r.broadcastP99) / Math.max(baseline.sampleP99, baseline.broadcastP99)).toFixed(2)} of baseline`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
