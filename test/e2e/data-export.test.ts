import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createOidcTenant, createUser, portalAccessToken, signInThroughPages, startOidcServer, userAccessToken, type OidcTenant } from '../helpers/oidc-login';
import { TestSocialUpstream } from '../helpers/social-upstream';
import { eventually, http, ROOT, type TestServer } from '../helpers/test-server';

const POSTS = 100_000;
/** Unique per run: a PostgreSQL server (DATABASE_URL) keeps the accounts of earlier runs. */
const email = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;
/** What the export itself may add to the process (the embedded database's share is not the export's). */
const RSS_GROWTH_LIMIT_MB = 80;
/** The bound on the whole server process (the embedded database runs in a process of its own). */
const SERVER_RSS_LIMIT_MB = 300;

/** Resident set size of a process now and at its peak (VmHWM), in MB. */
function rssOf(pid: number): { now: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

type Job = { id: string; kind: string; status: string; document_key: string; download_url: string | null; download_expires_at: string | null; acknowledge_by: string; expected_by: string };

async function waitForExport(server: TestServer, token: string, id: string, onTick: () => void = () => undefined): Promise<Job> {
  const until = Date.now() + 240_000;
  for (;;) {
    onTick();
    const list = await http(server, 'GET', '/v1/me/requests', { key: token });
    if (list.status !== 200) throw new Error(`GET /v1/me/requests: ${list.status} ${list.text}`);
    const job = (list.body.data as Job[]).find((j) => j.id === id);
    if (job && ['completed', 'failed', 'denied'].includes(job.status)) return job;
    if (Date.now() > until) throw new Error(`export ${id} still ${job?.status}`);
    // 600 ms: within the default bucket's 120 a minute however long a loaded machine takes (the peak is VmHWM, not these samples).
    await new Promise((r) => setTimeout(r, 600));
  }
}

/**
 * POST /v1/me/data-export end to end: the job streams the bundle with 100,000 posts from a real
 * social upstream, the user gets a pre-signed link and the document key, and the bundle passes
 * unzip -t and an independent verifier with the published key. The server's RSS is watched throughout.
 */
describe('the data export of a user with 100,000 posts', () => {
  let upstream: TestSocialUpstream;
  let server: TestServer;
  let tenant: OidcTenant;
  let token: string;
  let userId: string;
  const ada = email('ada');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-export-e2e-'));

  beforeAll(async () => {
    upstream = await TestSocialUpstream.start({ token: 'social-secret' });
    server = await startOidcServer({ SOCIAL_UPSTREAM_URL: upstream.url, SOCIAL_UPSTREAM_TOKEN: 'social-secret' });
    tenant = await createOidcTenant(server);
    userId = (await createUser(server, ada)).user_id;
    upstream.posts.set(userId, POSTS);
    // Ada uses the tenant's app (its grant goes in oauth_grants.json); her export is a whole-account
    // right, asked through the account portal with a sign-in of just now (D20).
    await userAccessToken(server, tenant, ada);
    token = (await portalAccessToken(server, ada)).tokens.access_token!;
    await new Promise((r) => setTimeout(r, 1000));
    baseline = rssOf(server.proc.pid!).now;
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let job: Job;
  let baseline = 0;
  let peakDuringExport = 0;

  it('refuses a tenant API key with user_token_required', async () => {
    const r = await http(server, 'POST', '/v1/me/data-export', { key: tenant.test_api_key });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('user_token_required');
  });

  it('answers 202 with the job and its document key, and a second request returns the same open job', async () => {
    const first = await http(server, 'POST', '/v1/me/data-export', { key: token });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ object: 'dsr_job', kind: 'export', delegated: false, download_url: null });
    expect(['received', 'in_progress']).toContain(first.body.status);
    expect(Buffer.from(first.body.document_key, 'base64')).toHaveLength(32);
    const again = await http(server, 'POST', '/v1/me/data-export', { key: token });
    expect(again.body.id).toBe(first.body.id);
    job = await waitForExport(server, token, first.body.id, () => {
      peakDuringExport = Math.max(peakDuringExport, rssOf(server.proc.pid!).now);
    });
    expect(job.status).toBe('completed');
  });

  it(`streams the export: the server's RSS grows by less than ${RSS_GROWTH_LIMIT_MB} MB and stays under ${SERVER_RSS_LIMIT_MB} MB`, () => {
    const growth = peakDuringExport - baseline;
    console.log(`server RSS (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded database'}): ${baseline.toFixed(0)} MB before the export, peak ${peakDuringExport.toFixed(0)} MB during it (+${growth.toFixed(0)} MB)`);
    expect(growth).toBeLessThan(RSS_GROWTH_LIMIT_MB);
    // VmHWM: the process's highest RSS since it started, so no peak between two samples escapes.
    const highWater = rssOf(server.proc.pid!).peak;
    console.log(`server RSS high-water mark since start: ${highWater.toFixed(0)} MB`);
    expect(highWater).toBeLessThan(SERVER_RSS_LIMIT_MB);
  });

  it('gives a pre-signed link valid for 7 days that downloads a bundle unzip -t finds intact', async () => {
    expect(job.download_url).toMatch(new RegExp(`/v1/exports/${job.id}/bundle\\.zip\\?expires=\\d+&sig=[0-9a-f]{64}$`));
    expect(job.download_url).not.toContain(job.document_key);
    const days = (Date.parse(job.download_expires_at!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const res = await fetch(job.download_url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    fs.writeFileSync(path.join(dir, 'export.zip'), Buffer.from(await res.arrayBuffer()));
    const test = spawnSync('unzip', ['-t', path.join(dir, 'export.zip')], { encoding: 'utf8', maxBuffer: 1 << 24 });
    expect(test.status).toBe(0);
  });

  it('holds every entry, with all 100,000 posts and the social entries of the upstream', () => {
    execFileSync('unzip', ['-q', path.join(dir, 'export.zip'), '-d', path.join(dir, 'x')]);
    const names = fs.readdirSync(path.join(dir, 'x')).sort();
    expect(names).toEqual(
      ['audit.ndjson', 'comments.ndjson', 'follows.ndjson', 'likes.ndjson', 'manifest.json', 'manifest.sig', 'messages.ndjson', 'oauth_grants.json', 'posts.ndjson', 'profile.json', 'verifications.ndjson'].sort(),
    );
    const lines = fs.readFileSync(path.join(dir, 'x', 'posts.ndjson'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(POSTS);
    expect(JSON.parse(lines[POSTS - 1])).toMatchObject({ id: `post_${POSTS - 1}`, author: userId });
    expect(fs.readFileSync(path.join(dir, 'x', 'likes.ndjson'), 'utf8').trimEnd().split('\n')).toHaveLength(3);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'x', 'profile.json'), 'utf8'))).toMatchObject({ id: userId, email: ada });
    const grants = JSON.parse(fs.readFileSync(path.join(dir, 'x', 'oauth_grants.json'), 'utf8'));
    expect(grants.find((g: { client_id: string }) => g.client_id === tenant.test_client_id)).toMatchObject({ client_id: tenant.test_client_id, app: 'Acme Shop' });
    const calls = upstream.calls.filter((c) => c.method === 'GET');
    expect(calls.every((c) => c.authorization === 'Bearer social-secret')).toBe(true);
  });

  it('verifies with the key published at /v1/.well-known/export-keys, by the node:crypto verifier', async () => {
    const jwks = await http(server, 'GET', '/v1/.well-known/export-keys');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(jwks.body));
    const out = execFileSync(process.execPath, [path.join(ROOT, 'examples/verify-export.mjs'), path.join(dir, 'x'), path.join(dir, 'jwks.json')], { encoding: 'utf8' });
    expect(out).toContain('bundle verified');
  });

  it('refuses a link whose signature or expiry was changed', async () => {
    const url = new URL(job.download_url!);
    const sig = url.searchParams.get('sig')!;
    url.searchParams.set('sig', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
    const forged = await fetch(url);
    expect(forged.status).toBe(403);
    expect((await forged.json()).error.code).toBe('link_invalid');
    const later = new URL(job.download_url!);
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 86_400));
    expect((await fetch(later)).status).toBe(403);
  });

  it('lists the request with its deadlines for its user only', async () => {
    const mine = await http(server, 'GET', '/v1/me/requests', { key: token });
    const listed = (mine.body.data as Job[]).find((j) => j.id === job.id)!;
    expect(Date.parse(listed.expected_by) - Date.parse(listed.acknowledge_by)).toBeGreaterThan(0);
    const grace = email('grace');
    await createUser(server, grace);
    const other = (await portalAccessToken(server, grace)).tokens.access_token!;
    const theirs = await http(server, 'GET', '/v1/me/requests', { key: other });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
  });
});

describe('the data export with no social upstream configured', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startOidcServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Runs the user's export to completion (with the account portal's token: D20) and hands its unzipped directory to `read`. */
  async function withExport(token: string, read: (dir: string) => void): Promise<void> {
    const created = await http(server, 'POST', '/v1/me/data-export', { key: token });
    const job = await waitForExport(server, token, created.body.id);
    expect(job.status).toBe('completed');
    const zip = Buffer.from(await (await fetch(job.download_url!)).arrayBuffer());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-export-small-'));
    try {
      fs.writeFileSync(path.join(dir, 'e.zip'), zip);
      execFileSync('unzip', ['-q', path.join(dir, 'e.zip'), '-d', path.join(dir, 'x')]);
      read(path.join(dir, 'x'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it('has the five social entries present and empty', async () => {
    const solo = email('solo');
    await createUser(server, solo);
    const token = (await portalAccessToken(server, solo)).tokens.access_token!;
    await withExport(token, (dir) => {
      for (const c of ['posts', 'comments', 'likes', 'follows', 'messages']) expect(fs.readFileSync(path.join(dir, `${c}.ndjson`), 'utf8')).toBe('');
    });
  });

  it("gives each decided verification its achieved tier in verifications.ndjson", async () => {
    const tenant = await createOidcTenant(server);
    const address = email('tiered');
    await createUser(server, address);
    const { tokens } = await signInThroughPages(server, tenant, address, undefined, { resource: true });
    // A test-mode session bound to the user at creation decides by itself about 10 s later.
    const created = await http(server, 'POST', '/v1/verify/sessions', {
      key: tenant.test_api_key,
      json: { flow_id: 'default', tier: 'T2', reference_id: 'export-tier', user_sub: tokens.claims().sub },
    });
    expect(created.status).toBe(201);
    const decided = await eventually(async () => {
      const s = await http(server, 'GET', `/v1/verify/sessions/${created.body.id}`, { key: tenant.test_api_key });
      return s.body.status === 'success' ? s.body : undefined;
    });
    expect(decided.result.achieved_tier).toBe('T2');
    await withExport((await portalAccessToken(server, address)).tokens.access_token!, (dir) => {
      const lines = fs.readFileSync(path.join(dir, 'verifications.ndjson'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(lines).toEqual([expect.objectContaining({ id: created.body.id, requested_tier: 'T2', status: 'success', decision: 'approved', achieved_tier: 'T2' })]);
    });
  });
});
