/**
 * `npm run bench:console`: the console's review queue page (issue 27 goal: with 10,000 cases queued,
 * the queue page answers in under 300 ms at p95) through the built server started as `npm start`
 * starts it, signed in as a reviewer through the real console sign-in (TOTP).
 *
 * Seeds CONSOLE_BENCH_N (10,000) manual_review sessions of one tenant by SQL (copies of one real
 * test-mode session that reached manual_review), then times, each over CONSOLE_BENCH_REQUESTS (300)
 * requests on 4 connections, interleaved round by round:
 * - the queue's first page (50 cards, oldest first), a filtered page (T2, test mode) and the next
 *   page by its cursor;
 * - baselines of the same run: GET /healthz (the server's floor) and the REST list of the same
 *   tenant's sessions (GraphQL `sessions(first: 50, status: MANUAL_REVIEW)`, a page of JSON: REST has no list).
 * Rate limits are off. DATABASE_URL / REDIS_URL: a real PostgreSQL and Redis; unset, the embedded database.
 */
import { createConsoleMember } from '../test/helpers/console-login';
import { dbClient } from '../test/helpers/hosted-client';
import { startOidcServer } from '../test/helpers/oidc-login';
import { createTenant, eventually, http } from '../test/helpers/test-server';

const N = Number(process.env.CONSOLE_BENCH_N ?? 10_000);
const REQUESTS = Number(process.env.CONSOLE_BENCH_REQUESTS ?? 300);
const CONNECTIONS = 4;

type Timing = { name: string; p50: number; p95: number; max: number; failures: number };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** `REQUESTS` GETs of `url` on CONNECTIONS concurrent loops; each latency from send to the last byte. */
async function time(name: string, url: string, headers: Record<string, string>, body?: string): Promise<Timing> {
  const latencies: number[] = [];
  let failures = 0;
  let left = REQUESTS;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (left-- > 0) {
        const t = performance.now();
        const r = await fetch(url, body ? { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body } : { headers, redirect: 'manual' });
        await r.arrayBuffer();
        latencies.push(performance.now() - t);
        if (r.status !== 200) failures++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { name, p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies[latencies.length - 1], failures };
}

async function main(): Promise<void> {
  const server = await startOidcServer({ RATE_LIMIT_ENABLED: 'false' });
  try {
    const tenant = await createTenant(server, 'Bench Console');
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T2', metadata: { test_outcome: 'review' } } });
    const templateId = created.body.id as string;
    await eventually(async () => ((await http(server, 'GET', `/v1/verify/sessions/${templateId}`, { key: tenant.test_api_key })).body.status === 'manual_review' ? true : undefined), 60_000);
    const db = await dbClient(server);
    let seedMs = 0;
    try {
      const t = performance.now();
      // Copies of the real session through jsonb, so the column list never drifts from the table's;
      // tiers T1..T4 and both modes spread, each entering the queue a second after the one before.
      await db.query(
        `INSERT INTO sessions SELECT (jsonb_populate_record(NULL::sessions, to_jsonb(s) || jsonb_build_object(
           'id', 'vses_bench' || lpad(i::text, 8, '0') || substr(md5(random()::text), 1, 8),
           'tier', 'T' || (1 + i % 4), 'livemode', i % 5 = 0,
           'completed_at', now() - ((${N} - i) || ' seconds')::interval))).*
         FROM sessions s, generate_series(1, ${N}) i WHERE s.id = $1`,
        [templateId],
      );
      await db.query('ANALYZE sessions');
      seedMs = performance.now() - t;
    } finally {
      await db.end();
    }
    const reviewer = await createConsoleMember(server, tenant.tenant_id, 'reviewer');
    const cookie = { cookie: reviewer.cookie };
    const first = await (await fetch(`${server.url}/console/queue`, { headers: cookie })).text();
    const cards = (first.match(/data-session-id=/g) ?? []).length;
    const next = /<a rel="next" href="([^"]+)"/.exec(first)?.[1].replace(/&amp;/g, '&');
    if (cards !== 50 || !next) throw new Error(`the queue page shows ${cards} cards${next ? '' : ' and no next page'}`);

    const list = JSON.stringify({ query: '{ sessions(first: 50, status: MANUAL_REVIEW) { edges { cursor node { id tier status completedAt } } pageInfo { hasNextPage } } }' });
    const cases: [string, string, Record<string, string>, string?][] = [
      ['GET /healthz (baseline)', `${server.url}/healthz`, {}],
      ['GraphQL sessions(first: 50, MANUAL_REVIEW) (baseline)', `${server.url}/graphql`, { authorization: `Bearer ${tenant.test_api_key}` }, list],
      ['GET /console/queue', `${server.url}/console/queue`, cookie],
      ['GET /console/queue?tier=T2&mode=test', `${server.url}/console/queue?tier=T2&mode=test`, cookie],
      ['GET /console/queue (next page)', `${server.url}${next}`, cookie],
    ];
    for (const [, url, headers, body] of cases) await time('warm-up', url, headers, body); // JIT, plans, pools
    const rounds: Timing[][] = [];
    for (let round = 0; round < 3; round++) {
      const timings: Timing[] = [];
      for (const [name, url, headers, body] of cases) timings.push(await time(name, url, headers, body));
      rounds.push(timings);
    }
    // Median of three rounds per case (each round's cases ran one after another, not at once).
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
    const result = cases.map(([name], i) => ({
      name,
      p50: med(rounds.map((r) => r[i].p50)),
      p95: med(rounds.map((r) => r[i].p95)),
      max: Math.max(...rounds.map((r) => r[i].max)),
      failures: rounds.reduce((n, r) => n + r[i].failures, 0),
    }));
    const api = result[1];
    console.log(`\nconsole queue: ${N.toLocaleString('en')} manual_review sessions seeded in ${(seedMs / 1000).toFixed(1)} s; ${REQUESTS} requests per case and round, ${CONNECTIONS} connections, median of 3 rounds; database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded'}\n`);
    console.log('| case | p50 ms | p95 ms | max ms | non-200 | p95 vs the API list |');
    console.log('|---|---|---|---|---|---|');
    for (const r of result) console.log(`| ${r.name} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.max.toFixed(1)} | ${r.failures} | ${(r.p95 / api.p95).toFixed(2)}x |`);
    const queue = result[2];
    console.log(`\ngoal: queue page p95 < 300 ms with ${N.toLocaleString('en')} queued: ${queue.p95.toFixed(1)} ms -> ${queue.p95 < 300 ? 'met' : 'NOT met'}`);
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
