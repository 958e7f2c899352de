/**
 * End users' tokens (docs/accounts-and-oidc.md, "Benchmark"), loopback, one server, rate limiting off:
 *
 * - GET /v1/me with the JWT access token (signature checked against the keys in memory, one SQL
 *   statement) against GET /v1/verify/sessions/{id} with an API key, interleaved over ROUNDS
 *   rounds; the verdict is the median of the per-round ratios (goal: >= 0.8).
 * - refresh_token grants per second at /v1/oidc/token, CHAINS rotation chains in parallel (a chain
 *   is sequential: each grant spends the refresh token the previous one returned).
 *
 *   npm run bench:oidc
 *   OIDC_BENCH_SECONDS=5 OIDC_ROUNDS=5 OIDC_CHAINS=4 [DATABASE_URL=postgres://...]
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { cliJson, median, ROOT } from './bench-support';
import { CookieJar, passInteraction } from './oidc-flow';

const SECONDS = Number(process.env.OIDC_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.OIDC_ROUNDS ?? 5);
const CHAINS = Number(process.env.OIDC_CHAINS ?? 4);
const CONNECTIONS = 10;
const REDIRECT = 'http://127.0.0.1:9/callback';
const PASSWORD = 'bench password 123';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const b64url = (b: Buffer) => b.toString('base64url');

/** The code flow with PKCE and the /v1 resource: returns the JWT access token and a refresh token. */
async function signIn(url: string, clientId: string, secret: string, email: string): Promise<{ access: string; refresh: string }> {
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const verifier = b64url(randomBytes(32));
  const challenge = b64url(createHash('sha256').update(verifier).digest());
  const resource = `${url}/v1`;
  const par = await fetch(`${url}/v1/oidc/par`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'openid email offline_access account', code_challenge: challenge, code_challenge_method: 'S256', resource, prompt: 'consent' }),
  });
  const { request_uri } = (await par.json()) as { request_uri: string };
  const back = await passInteraction(new CookieJar(), `${url}/v1/oidc/auth?client_id=${clientId}&request_uri=${encodeURIComponent(request_uri)}`, REDIRECT, email, PASSWORD);
  const code = new URL(back).searchParams.get('code')!;
  const tok = await fetch(`${url}/v1/oidc/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, resource }),
  });
  const t = (await tok.json()) as { access_token: string; refresh_token: string };
  return { access: t.access_token, refresh: t.refresh_token };
}

async function rps(url: string, token: string): Promise<number> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers: { authorization: `Bearer ${token}` } });
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

async function main(): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'oidc-bench-')),
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: url,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ENABLED: 'false',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist', 'app', 'main.js')], { env, stdio: 'ignore' });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        /* not yet */
      }
      if (i > 600) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const tenant = cliJson(env, ['tenant', 'create', '--name', 'Bench']) as { test_api_key: string; test_client_id: string; test_client_secret: string; tenant_id: string };
    cliJson(env, ['client', 'redirect-uris', '--tenant', tenant.tenant_id, '--mode', 'test', '--add', REDIRECT]);
    cliJson(env, ['user', 'create', '--email', 'bench@example.com', '--password', PASSWORD]);
    const created = await fetch(`${url}/v1/verify/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.test_api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ flow_id: 'default', tier: 'T1' }),
    });
    const sessionId = ((await created.json()) as { id: string }).id;
    const chains = [];
    for (let i = 0; i < CHAINS; i++) chains.push(await signIn(url, tenant.test_client_id, tenant.test_client_secret, 'bench@example.com'));

    // Warm-up, then interleaved rounds (the order alternates so drift hits both sides alike).
    await rps(`${url}/v1/me`, chains[0].access);
    await rps(`${url}/v1/verify/sessions/${sessionId}`, tenant.test_api_key);
    const ratios: number[] = [];
    const me: number[] = [];
    const key: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const pair = r % 2 === 0
        ? [await rps(`${url}/v1/me`, chains[0].access), await rps(`${url}/v1/verify/sessions/${sessionId}`, tenant.test_api_key)]
        : [0, await rps(`${url}/v1/verify/sessions/${sessionId}`, tenant.test_api_key)];
      if (r % 2 === 1) pair[0] = await rps(`${url}/v1/me`, chains[0].access);
      me.push(pair[0]);
      key.push(pair[1]);
      ratios.push(pair[0] / pair[1]);
    }

    // Refresh grants: each chain spends its refresh token and continues with the one returned.
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(tenant.test_client_id)}:${encodeURIComponent(tenant.test_client_secret)}`).toString('base64')}`;
    let grants = 0;
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(
      chains.map(async (chain) => {
        let refresh = chain.refresh;
        while (Date.now() < until) {
          const res = await fetch(`${url}/v1/oidc/token`, {
            method: 'POST',
            headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, resource: `${url}/v1` }),
          });
          const body = (await res.json()) as { refresh_token?: string; error?: string };
          if (!res.ok || !body.refresh_token) throw new Error(`refresh failed: ${res.status} ${JSON.stringify(body)}`);
          refresh = body.refresh_token;
          grants++;
        }
      }),
    );

    console.log(`| case | req/s (median of ${ROUNDS} rounds, ${SECONDS} s each, ${CONNECTIONS} connections) |`);
    console.log('|---|---|');
    console.log(`| GET /v1/me (JWT access token) | ${median(me).toFixed(0)} |`);
    console.log(`| GET /v1/verify/sessions/{id} (API key, baseline) | ${median(key).toFixed(0)} |`);
    console.log(`| refresh_token grants at /v1/oidc/token (${CHAINS} chains) | ${(grants / SECONDS).toFixed(0)} |`);
    const verdict = median(ratios);
    console.log(`\n/v1/me / API-key read: median ratio ${verdict.toFixed(2)} (rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')}); goal >= 0.80: ${verdict >= 0.8 ? 'met' : 'NOT met'}`);
  } finally {
    proc.kill('SIGTERM');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
