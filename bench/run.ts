import { cliJson, DEFAULT_DATABASE_URL, measure, Measured, median, printTable, startProcess } from './bench-support';

/**
 * `npm run bench`: reads of one session on real PostgreSQL, against an in-run baseline (a bare
 * express + pg route doing the same primary-key SELECT). Goals: REST >= 0.7x baseline, GraphQL >=
 * 0.8x REST.
 *
 * The machine is shared and its speed drifts by tens of percent within a minute, so the three cases
 * are interleaved: BENCH_ROUNDS rounds (default 5) of baseline, REST, GraphQL, BENCH_SECONDS each
 * (default 5). Each round gives its own ratios, measured seconds apart; the verdict is their median.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const env = { DATABASE_URL: databaseUrl, RATE_LIMIT_ENABLED: 'false', WORKER_ENABLED: 'true' };
  const tenant = cliJson(env, ['tenant', 'create', '--name', 'bench']);
  const key = tenant.live_api_key as string;
  const server = await startProcess('app/main.js', env);
  const baseline = await startProcess('bench/baseline-server.js', { DATABASE_URL: databaseUrl });
  try {
    const created = await fetch(`${server.url}/v1/verify/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ flow_id: 'default', tier: 'T2', reference_id: 'bench' }),
    });
    const { id } = (await created.json()) as { id: string };
    const headers = { authorization: `Bearer ${key}` };
    const query = JSON.stringify({ query: 'query($id: ID!) { session(id: $id) { id status tier referenceId hostedUrl createdAt expiresAt result { decision } } }', variables: { id } });
    const cases = {
      base: { url: `${baseline.url}/sessions/${id}` },
      rest: { url: `${server.url}/v1/verify/sessions/${id}`, headers },
      gql: { url: `${server.url}/graphql`, method: 'POST' as const, headers: { ...headers, 'content-type': 'application/json' }, body: query },
    };

    // Warm-up so JIT and pools are hot before anything is measured.
    for (const c of Object.values(cases)) await measure('warm-up', { ...c, duration: 3 });

    const rows: Measured[] = [];
    const restOverBase: number[] = [];
    const gqlOverRest: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const base = await measure(`round ${round} baseline: express + pg SELECT`, { ...cases.base, duration: SECONDS });
      const rest = await measure(`round ${round} REST GET /v1/verify/sessions/{id}`, { ...cases.rest, duration: SECONDS });
      const gql = await measure(`round ${round} GraphQL session(id)`, { ...cases.gql, duration: SECONDS });
      rows.push(base, rest, gql);
      restOverBase.push(rest.rps / base.rps);
      gqlOverRest.push(gql.rps / rest.rps);
    }
    printTable(rows);
    const by = (prefix: string) => rows.filter((r) => r.name.includes(prefix));
    console.log(`\nmedian req/s: baseline ${median(by('baseline').map((r) => r.rps)).toFixed(0)}, REST ${median(by('REST').map((r) => r.rps)).toFixed(0)}, GraphQL ${median(by('GraphQL').map((r) => r.rps)).toFixed(0)}`);
    console.log(`median p99 ms: baseline ${median(by('baseline').map((r) => r.p99))}, REST ${median(by('REST').map((r) => r.p99))}, GraphQL ${median(by('GraphQL').map((r) => r.p99))}`);
    console.log(`REST / baseline per round: ${restOverBase.map((x) => x.toFixed(2)).join(' ')} -> median ${median(restOverBase).toFixed(2)}x (goal >= 0.70)`);
    console.log(`GraphQL / REST per round: ${gqlOverRest.map((x) => x.toFixed(2)).join(' ')} -> median ${median(gqlOverRest).toFixed(2)}x (goal >= 0.80)`);
  } finally {
    await Promise.all([server.stop(), baseline.stop()]);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
