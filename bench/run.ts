import { cliJson, DEFAULT_DATABASE_URL, measure, printTable, startProcess } from './bench-support';

/**
 * `npm run bench`: reads of one session on real PostgreSQL, in one run, against an in-run baseline
 * (a bare express + pg route doing the same primary-key SELECT). Goals: REST >= 0.7x baseline,
 * GraphQL >= 0.8x REST. BENCH_SECONDS sets each case's duration (default 10).
 */
async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const env = { DATABASE_URL: databaseUrl, RATE_LIMIT_ENABLED: 'false', WORKER_ENABLED: 'true' };
  const tenant = cliJson(env, ['tenant', 'create', '--name', 'bench']);
  const key = tenant.live_api_key as string;
  const server = await startProcess('src/main.js', env);
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

    // Warm-up so JIT and pools are hot before anything is measured.
    await measure('warm-up', { url: `${server.url}/v1/verify/sessions/${id}`, headers, duration: 3 });
    await measure('warm-up', { url: `${baseline.url}/sessions/${id}`, duration: 3 });

    const rows = [
      await measure('baseline: express + pg SELECT', { url: `${baseline.url}/sessions/${id}` }),
      await measure('REST GET /v1/verify/sessions/{id}', { url: `${server.url}/v1/verify/sessions/${id}`, headers }),
      await measure('GraphQL session(id)', { url: `${server.url}/graphql`, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: query }),
    ];
    printTable(rows);
    const [base, rest, gql] = rows;
    console.log(`\nREST / baseline = ${(rest.rps / base.rps).toFixed(2)}x (goal >= 0.70)`);
    console.log(`GraphQL / REST = ${(gql.rps / rest.rps).toFixed(2)}x (goal >= 0.80)`);
  } finally {
    await Promise.all([server.stop(), baseline.stop()]);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
