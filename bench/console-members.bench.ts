/**
 * `npm run bench:console-members`: the console's signed-in pages through the built server started as `npm start`
 * starts it (docs/console.md, docs/benchmarks.md "Console members"). A signed-in owner (TOTP passed) reads the
 * Members page of a tenant with 50 members: the guard resolves the sign-in (one UPDATE that slides the
 * idle clock), reads the member and the tenant, then the page lists members and invitations. Baseline of
 * the same run: GET /healthz (one SELECT). Rate limits off. BENCH_SECONDS per case (default 10).
 */
import { createConsoleMember } from '../test/helpers/console-login';
import { createUser, freePort, testEmail } from '../test/helpers/oidc-login';
import { cli, createTenant, startServer, testEnv } from '../test/helpers/test-server';
import { measure, printTable } from './bench-support';

async function main(): Promise<void> {
  const port = await freePort();
  const server = await startServer(testEnv({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_ENABLED: 'false' }));
  try {
    const tenant = await createTenant(server, 'Bench Console');
    const owner = await createConsoleMember(server, tenant.tenant_id, 'owner');
    for (let i = 0; i < 49; i++) {
      const email = testEmail(`bench.member.${i}`);
      await createUser(server, email);
      await cli(server.env, ['member', 'add', '--tenant', tenant.tenant_id, '--email', email, '--role', i % 2 ? 'viewer' : 'reviewer', '--json']);
    }
    const check = await fetch(`${server.url}/console/members`, { headers: { cookie: owner.cookie }, redirect: 'manual' });
    if (check.status !== 200) throw new Error(`members page answered ${check.status}`);
    const rows = [
      await measure('GET /healthz (baseline)', { url: `${server.url}/healthz` }),
      await measure('GET /console/members, 50 members', { url: `${server.url}/console/members`, headers: { cookie: owner.cookie } }),
      await measure('GET /console/members, 1 connection', { url: `${server.url}/console/members`, headers: { cookie: owner.cookie }, connections: 1 }),
    ];
    printTable(rows);
    console.log(`\nmembers page / healthz throughput: ${(rows[1].rps / rows[0].rps).toFixed(2)}x; members page p99 at 16 connections: ${rows[1].p99} ms (goal under 100 ms)`);
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
