import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPage, pageCall, upload, type PageSession } from '../test/helpers/hosted-client';
import { SimulatedWallet } from '../test/helpers/simulated-wallet';
import { childOf, cpuSeconds } from './process-cpu';
import { freshCertificateAuthority } from '../test/helpers/test-pki';
import { cli, createTenant, http, startServer, testEnv, type Tenant, type TestServer } from '../test/helpers/test-server';
import { packageImage } from './checks/face-images';
import { quantile } from './hosted-flow';

/**
 * npm run bench:digital-id — how long a live T1 session takes to be decided after the wallet's answer
 * (issue 43's goal: within 3 s p99, 4 at once), on each channel the hosted page takes an answer on:
 * - cross device: the wallet fetches the request by reference and posts the direct_post.jwt JWE;
 * - same device, Digital Credentials API, `openid4vp-v1-unsigned`: the page posts what
 *   `navigator.credentials.get` resolved with (the vp_token bound to the page's origin) to the answer endpoint;
 * - same device, `org-iso-mdoc` (ISO 18013-7 Annex C): the same, with the HPKE-sealed DeviceResponse (mdocs only).
 * Each session is prepared untimed (created, started, the selfie uploaded, the digital-ID request made); then
 * 4 wallets answer at once, each page submits as soon as its answer is verified, and the clock stops when the
 * tenant's API shows the decision (polled every 25 ms). The wallet (the tests' SimulatedWallet) builds its
 * answer untimed (the phone's work); the clock starts at the POST of the answer (by the wallet, or by the page
 * on the same device). A round is 4 sessions of one channel and credential, and the rounds go round the
 * channels and credentials, so the channels share the machine's state and each round's server CPU is its own.
 * Face match is the embedded engine, as shipped; one session first warms its models. Each session's time is
 * split into phases (the server's `checks decided` line gives the wait for a check worker and the run), and
 * the server's CPU per session is read from /proc, its own and its child processes' (the embedded database).
 *
 * Env: DIGITAL_ID_BENCH_ROUNDS (24 rounds of 4: 3 of each channel and credential), DIGITAL_ID_BENCH_CHECK_WORKERS
 * (engine threads; default one per core as shipped), PORT (the server's; default any free one),
 * BENCH_CPU_PROFILE=<dir> (the server writes V8 CPU profiles there: `node dist/bench/cpu-profile-summary.js <dir>`),
 * DATABASE_URL/REDIS_URL (else the embedded database).
 */
const ROUNDS = Number(process.env.DIGITAL_ID_BENCH_ROUNDS ?? 24);
const CONCURRENCY = 4;
/** The page's origin (PUBLIC_BASE_URL): a same-device answer is bound to it; the bench rebases URLs to the server. */
const ORIGIN = 'https://verify.bench.test';
const CHANNELS = ['cross-device direct_post.jwt', 'DC API openid4vp-v1-unsigned', 'DC API org-iso-mdoc'] as const;
type Channel = (typeof CHANNELS)[number];
type Credential = 'mdl' | 'pid_mdoc' | 'pid_sd_jwt';
/** What a round runs, in turn: Annex C carries mdocs only. */
const CASES: ReadonlyArray<{ channel: Channel; credential: Credential }> = [
  { channel: 'cross-device direct_post.jwt', credential: 'mdl' },
  { channel: 'DC API openid4vp-v1-unsigned', credential: 'mdl' },
  { channel: 'DC API org-iso-mdoc', credential: 'mdl' },
  { channel: 'cross-device direct_post.jwt', credential: 'pid_sd_jwt' },
  { channel: 'DC API openid4vp-v1-unsigned', credential: 'pid_sd_jwt' },
  { channel: 'cross-device direct_post.jwt', credential: 'pid_mdoc' },
  { channel: 'DC API openid4vp-v1-unsigned', credential: 'pid_mdoc' },
  { channel: 'DC API org-iso-mdoc', credential: 'pid_mdoc' },
];

/** /metrics is read before and after the rounds: the face_match engine call's share of the checks' run. */
const METRICS_TOKEN = 'bench-digital-id-metrics-token';

type DcApiRequest = { protocol: string; data: Record<string, unknown> };
type Prepared = { page: PageSession; requestId: string; link: string; dcApiRequests: DcApiRequest[] };
type Outcome = { ms: number; status: string; channel: Channel; credential: Credential; sessionId: string; verifyMs: number; submitMs: number };
/** From the server's `checks decided` line: how long the submitted session waited for a worker, and the run itself. */
type ServerSide = { waitedMs: number; runMs: number };

/**
 * The server's CPU so far and its child's (the embedded database's own process, which the server's count
 * leaves out; none on PostgreSQL), ms, from /proc (bench/process-cpu.ts).
 */
const cpuNow = (pid: number) => ({ server: cpuSeconds(pid) * 1000, children: cpuSeconds(childOf(pid)) * 1000 });
type Cpu = ReturnType<typeof cpuNow>;

async function main(): Promise<void> {
  // Rate limits off: one client address polls 4 sessions every 25 ms, far past the default bucket.
  // CHECK_WORKERS: the engine threads (default: one per core, as shipped); DIGITAL_ID_BENCH_CHECK_WORKERS overrides.
  const workers = process.env.DIGITAL_ID_BENCH_CHECK_WORKERS;
  const profile = process.env.BENCH_CPU_PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROFILE)}` } : {};
  const server = await startServer(
    testEnv({
      RATE_LIMIT_ENABLED: 'false',
      PUBLIC_BASE_URL: ORIGIN,
      METRICS_TOKEN,
      ...(process.env.PORT ? { PORT: process.env.PORT } : {}),
      ...(workers ? { CHECK_WORKERS: workers } : {}),
      ...profile,
      CHECK_DOCUMENT_ENGINE: 'off',
      CHECK_LIVENESS_ENGINE: 'off',
      CHECK_ANTI_SPOOF_ENGINE: 'off',
    }),
  );
  try {
    const tenant = await createTenant(server);
    const ca = freshCertificateAuthority('Bench IACA');
    const pem = path.join(mkdtempSync(path.join(tmpdir(), 'bench-digital-id-')), 'ca.pem');
    writeFileSync(pem, ca.certificatePem);
    for (const kind of ['iaca', 'sd-jwt-vc-issuer']) await cli(server.env, ['trust', 'add', '--environment', 'live', '--kind', kind, '--pem', pem, '--json']);
    const wallet = new SimulatedWallet(
      { family_name: 'Mustermann', given_name: 'Erika', birth_date: '1984-08-12', portrait: packageImage('franck_02221.jpg').bytes, document_number: 'T22000129', expiry_date: '2031-01-01', issuing_country: 'UT', nationality: 'DE' },
      undefined,
      ca,
    );
    const rebase = (url: string) => `${server.url}${new URL(url).pathname}${new URL(url).search}`;
    const ctx = { server, tenant, wallet, rebase };

    const warm = await decideOne(ctx, await prepare(server, tenant), CASES[0]);
    process.stderr.write(`bench:digital-id warm-up (models load): ${warm.ms.toFixed(0)} ms, ${warm.status}\n`);

    const outcomes: Outcome[] = [];
    const cpuMs = new Map<string, Cpu>();
    const faceMatchBefore = await faceMatchCalls(server);
    const load = os.loadavg();
    for (let round = 0; round < ROUNDS; round++) {
      const c = CASES[round % CASES.length];
      const prepared = await Promise.all(Array.from({ length: CONCURRENCY }, () => prepare(server, tenant)));
      const cpuBefore = cpuNow(server.proc.pid!);
      outcomes.push(...(await Promise.all(prepared.map((p) => decideOne(ctx, p, c)))));
      const after = cpuNow(server.proc.pid!);
      for (const key of [c.channel, `${c.channel} ${c.credential}`]) {
        const sum = cpuMs.get(key) ?? { server: 0, children: 0 };
        cpuMs.set(key, { server: sum.server + after.server - cpuBefore.server, children: sum.children + after.children - cpuBefore.children });
      }
      process.stderr.write(`bench:digital-id round ${round + 1}/${ROUNDS} (${c.channel}, ${c.credential})\n`);
    }
    const loadAfter = os.loadavg();
    const faceMatchAfter = await faceMatchCalls(server);
    const server_ = serverSide(await server.settledLogs());
    const fmt = (values: number[]) => (values.length ? `${quantile(values, 0.5).toFixed(0)} | ${quantile(values, 0.99).toFixed(0)} | ${Math.max(...values).toFixed(0)}` : ' | | ');
    // A round is one channel and credential, so its server CPU is theirs.
    const caseRow = (name: string, of: Outcome[], cpu: Cpu = { server: 0, children: 0 }) => {
      const ok = of.filter((o) => o.status === 'success').length;
      return `| ${name} | ${of.length} | ${fmt(of.map((o) => o.ms))} | ${ok}/${of.length} | ${(cpu.server / of.length).toFixed(0)} | ${(cpu.children / of.length).toFixed(0)} |\n`;
    };
    process.stdout.write(
      `\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load average ${load.map((l) => l.toFixed(2)).join(' ')} before the rounds, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after; ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded database'}, check engine threads: ${workers ?? 'default (one per core)'}\n`,
    );
    process.stdout.write(`\n| live T1, wallet answer -> decision, ${CONCURRENCY} at once | n | p50 ms | p99 ms | max ms | success | server CPU ms per session | its child processes' (embedded database) |\n|---|---|---|---|---|---|---|---|\n`);
    for (const channel of CHANNELS) {
      const ofChannel = outcomes.filter((o) => o.channel === channel);
      if (!ofChannel.length) continue;
      process.stdout.write(caseRow(`**${channel}**`, ofChannel, cpuMs.get(channel)));
      for (const credential of ['mdl', 'pid_mdoc', 'pid_sd_jwt'] as const) {
        const of = ofChannel.filter((o) => o.credential === credential);
        if (of.length) process.stdout.write(caseRow(`... ${credential}`, of, cpuMs.get(`${channel} ${credential}`)));
      }
    }
    process.stdout.write(caseRow(
        'all channels',
        outcomes,
        CHANNELS.map((ch) => cpuMs.get(ch) ?? { server: 0, children: 0 }).reduce((a, b) => ({ server: a.server + b.server, children: a.children + b.children })),
      ));
    // Where the time goes, per session: the answer's verification, the page's submit, the wait for a check
    // worker, the checks' run (face match), and the rest (the decision written and read back by the tenant's poll).
    process.stdout.write(`\n| phase | channel | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|\n`);
    const phases = outcomes.map((o) => ({ o, s: server_.get(o.sessionId) })).filter((x): x is { o: Outcome; s: ServerSide } => x.s !== undefined);
    const phaseRows: Array<[string, (x: { o: Outcome; s: ServerSide }) => number]> = [
      ['answer verified (POST of the answer)', (x) => x.o.verifyMs],
      ['page submit', (x) => x.o.submitMs],
      ['wait for a check worker', (x) => x.s.waitedMs],
      ['checks run (digital_id, face_match)', (x) => x.s.runMs],
      ['rest (decision seen by the poll)', (x) => Math.max(0, x.o.ms - x.o.verifyMs - x.o.submitMs - x.s.waitedMs - x.s.runMs)],
    ];
    for (const [name, of] of phaseRows) {
      for (const channel of CHANNELS) {
        const values = phases.filter((x) => x.o.channel === channel).map(of);
        if (values.length) process.stdout.write(`| ${name} | ${channel} | ${fmt(values)} |\n`);
      }
    }
    const calls = faceMatchAfter.count - faceMatchBefore.count;
    const runs = phases.map((x) => x.s.runMs);
    if (calls > 0 && runs.length > 0) {
      const faceMatchMs = ((faceMatchAfter.sum - faceMatchBefore.sum) / calls) * 1000;
      const runMs = runs.reduce((a, b) => a + b, 0) / runs.length;
      process.stdout.write(
        `\nThe checks' run took ${runMs.toFixed(0)} ms on average, of which the face_match engine call (its two face analyses on the engine threads, with the wait for one) ${faceMatchMs.toFixed(0)} ms (${calls} calls, /metrics ivs_check_duration_seconds).\n`,
      );
    }
  } finally {
    await server.stop();
  }
}

/** The face_match engine calls so far (count, seconds) from the server's /metrics histogram. */
async function faceMatchCalls(server: TestServer): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const total = (suffix: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`ivs_check_duration_seconds_${suffix}{`) && line.includes('check="face_match"'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return { count: total('count'), sum: total('sum') };
}

function serverSide(log: string): Map<string, ServerSide> {
  const out = new Map<string, ServerSide>();
  for (const line of log.split('\n')) {
    if (!line.includes('checks decided')) continue;
    try {
      const e = JSON.parse(line) as { sessionId?: string; waitedMs?: number; ms?: number };
      if (e.sessionId && typeof e.ms === 'number') out.set(e.sessionId, { waitedMs: e.waitedMs ?? 0, runMs: e.ms });
    } catch {
      /* not a JSON line */
    }
  }
  return out;
}

/** Untimed: a live T1 session at its document step, selfie already taken, with a digital-ID request out. */
async function prepare(server: TestServer, tenant: Tenant): Promise<Prepared> {
  const created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.live_api_key, json: { flow_id: 'default', tier: 'T1' } });
  const page = await openPage(server, created.body);
  await pageCall(server, page, 'POST', 'start');
  await upload(server, page, { class: 'selfie_image' }, packageImage('franck_04000.jpg').bytes, 'image/jpeg');
  const request = await pageCall(server, page, 'POST', 'digital-id/requests');
  if (request.status !== 201) throw new Error(`digital-id request: ${request.status} ${request.text}`);
  return { page, requestId: request.body.id, link: request.body.cross_device.link, dcApiRequests: request.body.dc_api_requests };
}

type Ctx = { server: TestServer; tenant: Tenant; wallet: SimulatedWallet; rebase: (u: string) => string };

/**
 * The wallet's answer, built untimed (the phone's own work), and the timed POST that delivers it: the
 * wallet's to the response URI (cross device), or the page's to the session's answer endpoint with what
 * `navigator.credentials.get` resolved with (same device, as web/hosted/client/main.ts does).
 */
async function answerOf(ctx: Ctx, p: Prepared, c: (typeof CASES)[number]): Promise<() => Promise<{ status: string }>> {
  if (c.channel === 'cross-device direct_post.jwt') {
    const request = await ctx.wallet.fetchOpenid4vpRequest(p.link, { rebase: ctx.rebase });
    const response = await ctx.wallet.answerDirectPostJwt(request, { credential: c.credential });
    return async () => {
      const res = await fetch(ctx.rebase(request.response_uri!), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ response }).toString() });
      return (await res.json()) as { status: string };
    };
  }
  const protocol = c.channel === 'DC API org-iso-mdoc' ? 'org-iso-mdoc' : 'openid4vp-v1-unsigned';
  const entry = p.dcApiRequests.find((r) => r.protocol === protocol);
  if (!entry) throw new Error(`no ${protocol} among the page's requests`);
  const answer = await ctx.wallet.answerDigitalCredentialRequest(entry, ORIGIN, { credential: c.credential });
  return async () => {
    const res = await http(ctx.server, 'POST', `/v1/hosted/sessions/${p.page.id}/digital-id/requests/${encodeURIComponent(p.requestId)}/response`, {
      headers: { authorization: `Bearer ${p.page.credential}` },
      json: { protocol: answer.protocol, data: answer.data },
    });
    return res.body as { status: string };
  };
}

/** The clock runs from the answer's POST until the tenant's API shows the decision: the page's submit on the verified answer and the checks in between. */
async function decideOne(ctx: Ctx, p: Prepared, c: (typeof CASES)[number]): Promise<Outcome> {
  const post = await answerOf(ctx, p, c);
  const started = performance.now();
  const answered = await post();
  if (answered.status !== 'verified') throw new Error(`wallet answer (${c.channel}, ${c.credential}): ${JSON.stringify(answered)}`);
  const verifyMs = performance.now() - started;
  const submitted = await pageCall(ctx.server, p.page, 'POST', 'submit');
  if (submitted.status !== 200) throw new Error(`submit: ${submitted.status} ${submitted.text}`);
  const submitMs = performance.now() - started - verifyMs;
  for (;;) {
    const s = await http(ctx.server, 'GET', `/v1/verify/sessions/${p.page.id}`, { key: ctx.tenant.live_api_key });
    if (!['created', 'in_progress', 'processing'].includes(s.body.status)) return { ms: performance.now() - started, status: s.body.status, ...c, sessionId: p.page.id, verifyMs, submitMs };
    if (performance.now() - started > 120_000) throw new Error('not decided within 120 s');
    await new Promise((r) => setTimeout(r, 25));
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
