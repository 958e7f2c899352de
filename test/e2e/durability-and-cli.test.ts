import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from 'pg';
import { cliProcess, createTenant, eventually, http, loggedLine, ROOT, startServer, testEnv } from '../helpers/test-server';

describe('durable test-mode jobs', () => {
  it('still resolves a session when the server is killed with SIGKILL 2 s after creating it', async () => {
    const env = testEnv();
    const first = await startServer(env);
    const tenant = await createTenant(first);
    const created = await http(first, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1', metadata: { test_outcome: 'declined' } } });
    expect(created.status).toBe(201);
    await new Promise((r) => setTimeout(r, 2_000));
    await first.kill9();

    const second = await startServer(env);
    try {
      const final = await eventually(async () => {
        const r = await http(second, 'GET', `/v1/verify/sessions/${created.body.id}`, { key: tenant.test_api_key });
        return r.body.status === 'failed' ? r.body : undefined;
      });
      expect(final.result.decision).toBe('declined');
    } finally {
      await second.stop();
    }
  });
});

/** The children of a process whose command line names the embedded database's entry. */
function databaseProcessesOf(pid: number): number[] {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.filter((child) => {
    try {
      return fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('embedded-postgres.process');
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** `SHOW shared_buffers` through the database's socket in DATA_DIR, as `psql -h DATA_DIR` would ask it. */
async function sharedBuffersAt(dataDir: string): Promise<string> {
  const client = new Client({ host: dataDir, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers;
  } finally {
    await client.end();
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2].startsWith('Z');
  } catch {
    return false;
  }
}

// With DATABASE_URL set (the CI's second pass) there is no embedded database to watch.
(process.env.DATABASE_URL ? describe.skip : describe)('the embedded database process', () => {
  it('runs beside the server and ends with it, whether the server stops or is killed', async () => {
    const env = testEnv();
    const socket = path.join(env.DATA_DIR!, '.s.PGSQL.5432');
    for (const end of ['stop', 'kill9'] as const) {
      const server = await startServer(env);
      const [database] = databaseProcessesOf(server.proc.pid!);
      expect(database).toBeGreaterThan(0);
      expect(fs.existsSync(socket)).toBe(true);
      expect((await http(server, 'GET', '/healthz')).body).toMatchObject({ database: 'up' });
      if (end === 'stop') {
        // Its buffer pool is the embedded size, not initdb's 128 MB: a start touches all of it (src/db/embedded-postgres.ts).
        expect(await sharedBuffersAt(env.DATA_DIR!)).toBe('32MB');
        expect(await server.stop()).toBe(0);
      } else await server.kill9();
      // No orphan holding DATA_DIR: it closes PGlite, removes its socket and exits.
      await eventually(async () => (!isRunning(database) && !fs.existsSync(socket) ? true : undefined));
    }
  });

  it('starts the database process again when it dies under the server, which stays up and keeps its data (issue #40 finding 3)', async () => {
    const server = await startServer();
    try {
      const tenant = await createTenant(server, 'restart-co');
      const before = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
      expect(before.status).toBe(201);
      const [database] = databaseProcessesOf(server.proc.pid!);
      process.kill(database, 'SIGKILL'); // what the OOM killer does to the larger process
      await eventually(async () => (server.logs.join('').includes('embedded database lost; starting it again') ? true : undefined));
      // Starting PGlite takes seconds: meanwhile /readyz names the reason with its code.
      const codes = new Set<string>();
      await eventually(async () => {
        const r = await http(server, 'GET', '/readyz');
        codes.add(String(r.body.checks?.database));
        return r.status === 200 ? true : undefined;
      }, 60_000, 100);
      expect(codes).toContain('database_restarting');
      expect(server.proc.exitCode).toBeNull();
      const [again] = databaseProcessesOf(server.proc.pid!);
      expect(again).toBeGreaterThan(0);
      expect(again).not.toBe(database);
      // The same server reads what it wrote before, and writes again.
      expect((await http(server, 'GET', `/v1/verify/sessions/${before.body.id}`, { key: tenant.test_api_key })).status).toBe(200);
      expect((await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' } })).status).toBe(201);
    } finally {
      await server.stop();
    }
  });
});

describe('CLI', () => {
  it('manages tenants and keys with the server down and up, and a revoked key is refused at once', async () => {
    const env = testEnv();
    // Server down: the CLI opens the embedded database itself (or uses DATABASE_URL).
    const created = await cliProcess(env, ['tenant', 'create', '--name', 'offline-co', '--json']);
    expect(created.code).toBe(0);
    expect(created.json).toEqual({
      tenant_id: expect.stringMatching(/^ten_[A-Za-z0-9]{24}$/),
      test_api_key: expect.stringMatching(/^sk_test_[A-Za-z0-9]{40}$/),
      live_api_key: expect.stringMatching(/^sk_live_[A-Za-z0-9]{40}$/),
      // Each mode's OIDC client (docs/accounts-and-oidc.md), its secret shown only here.
      test_client_id: expect.stringMatching(/^oc_test_[A-Za-z0-9]{16,}$/),
      test_client_secret: expect.stringMatching(/^ocs_[A-Za-z0-9]{32,}$/),
      live_client_id: expect.stringMatching(/^oc_live_[A-Za-z0-9]{16,}$/),
      live_client_secret: expect.stringMatching(/^ocs_[A-Za-z0-9]{32,}$/),
    });
    const tenantId = created.json!.tenant_id as string;
    const offlineKey = await cliProcess(env, ['key', 'create', '--tenant', tenantId, '--mode', 'live', '--scopes', 'sessions:read', '--json']);
    expect(offlineKey.json).toMatchObject({ livemode: true, scopes: ['sessions:read'] });

    const server = await startServer(env);
    try {
      // Server up: the same commands go through the socket (embedded) or the same DATABASE_URL.
      if (!env.DATABASE_URL) expect(fs.existsSync(path.join(env.DATA_DIR!, '.s.PGSQL.5432'))).toBe(true);
      const listed = await cliProcess(server.env, ['tenant', 'list', '--json']);
      expect((listed.json!.tenants as { tenant_id: string; active_keys: number }[]).find((t) => t.tenant_id === tenantId)).toMatchObject({ active_keys: 3 });
      const testKey = created.json!.test_api_key as string;
      const ok = await http(server, 'POST', '/v1/verify/sessions', { key: testKey, json: { flow_id: 'default', tier: 'T0' } });
      expect(ok.status).toBe(201);

      const issued = await cliProcess(server.env, ['key', 'create', '--tenant', tenantId, '--mode', 'test', '--json']);
      const key = issued.json!.api_key as string;
      expect((await http(server, 'GET', `/v1/verify/sessions/${ok.body.id}`, { key })).status).toBe(200);
      const revoked = await cliProcess(server.env, ['key', 'revoke', '--key', issued.json!.key_id as string, '--json']);
      expect(revoked.json).toEqual({ key_id: issued.json!.key_id, revoked: true });
      expect((await http(server, 'GET', `/v1/verify/sessions/${ok.body.id}`, { key })).status).toBe(401);

      const unknown = await cliProcess(server.env, ['key', 'revoke', '--key', 'key_doesnotexist', '--json']);
      expect(unknown.code).toBe(1);
      expect(unknown.json).toMatchObject({ error: { code: 'not_found' } });
      const usage = await cliProcess(server.env, ['tenant', 'explode']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('Usage');

      // A batch: one process, one JSON line out per command line in, in order; a failed or malformed line does not stop it.
      const lines = [
        JSON.stringify(['key', 'create', '--tenant', tenantId, '--mode', 'test']),
        JSON.stringify(['key', 'revoke', '--key', 'key_doesnotexist']),
        '{"not": "an array"}',
        JSON.stringify(['webhooks', 'listen', '--api-key', testKey]),
        JSON.stringify(['tenant', 'list', '--json']),
        // What a process's arguments cannot carry, and a line past the limit: refused, nothing stored.
        JSON.stringify(['tenant', 'create', '--name', 'nul\u0000name']),
        JSON.stringify(['tenant', 'create', '--name', 'half\ud800surrogate']),
        JSON.stringify(['tenant', 'create', '--name', 'x'.repeat(70_000)]),
        JSON.stringify(['tenant', 'list']),
      ];
      const batch = await cliProcess(server.env, ['batch'], { input: `${lines.join('\n')}\n` });
      expect(batch.code).toBe(1);
      const out = batch.stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(out).toHaveLength(9);
      expect(out[0]).toEqual({ exit_code: 0, result: { key_id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^sk_test_/), livemode: false, scopes: expect.arrayContaining(['sessions:read']) } });
      expect(out[1]).toEqual({ exit_code: 1, error: { code: 'not_found', message: expect.any(String) } });
      expect(out[2]).toEqual({ exit_code: 2, usage: expect.stringContaining('JSON array') });
      expect(out[3]).toEqual({ exit_code: 2, usage: 'webhooks cannot run in a batch' });
      // The tenant's two keys, the scoped one and the batch's own (the one revoked above no longer counts).
      expect(out[4].result.tenants.find((t: { tenant_id: string }) => t.tenant_id === tenantId)).toMatchObject({ active_keys: 4 });
      expect(out.slice(5, 8)).toEqual([
        { exit_code: 2, usage: 'An argument cannot contain a NUL character or an unpaired UTF-16 surrogate' },
        { exit_code: 2, usage: 'An argument cannot contain a NUL character or an unpaired UTF-16 surrogate' },
        { exit_code: 2, usage: expect.stringContaining('of at most 65536 characters') },
      ]);
      expect(out[8].result.tenants.map((t: { name: string }) => t.name).sort()).toEqual(out[4].result.tenants.map((t: { name: string }) => t.name).sort());
      // The key the batch made works at once.
      expect((await http(server, 'GET', `/v1/verify/sessions/${ok.body.id}`, { key: out[0].result.api_key })).status).toBe(200);
    } finally {
      await server.stop();
    }
    // Down again: the socket is gone and the CLI still works on the files.
    const after = await cliProcess(env, ['tenant', 'list', '--json']);
    expect(after.code).toBe(0);
  });

  it('batch: a line that never ends is dropped as it arrives, not held in memory, and the next line still runs', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'app', 'cli.js'), 'batch'], { env: testEnv(), stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
    const send = (chunk: string) => new Promise<void>((resolve) => (child.stdin.write(chunk) ? resolve() : child.stdin.once('drain', resolve)));
    const mib = 'x'.repeat(1024 * 1024);
    await send(mib);
    const before = rssMb();
    for (let i = 0; i < 128; i++) await send(mib); // 128 MiB of one line: held whole (as readline holds it), it would add some 128 MB
    const grown = rssMb() - before;
    child.stdin.end(`\n${JSON.stringify(['no-such-command'])}\n`);
    expect(await exited).toBe(1);
    expect(grown).toBeLessThan(64);
    expect(stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { exit_code: 2, usage: expect.stringContaining('of at most 65536 characters') },
      { exit_code: 2, usage: 'Unknown command: no-such-command' },
    ]);
  });

  it('never prints a key into the server log', async () => {
    const server = await startServer();
    try {
      const tenant = await createTenant(server);
      await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
      await http(server, 'GET', '/v1/verify/sessions/vses_AAAAAAAAAAAAAAAAAAAAAAAA', { key: tenant.live_api_key });
      // Both requests' lines written (the create's 201, the read's 404), then the whole log is searched for the keys.
      await loggedLine(server, '"status":201');
      await loggedLine(server, '"status":404');
      const logs = await server.settledLogs();
      expect(logs).not.toContain(tenant.test_api_key);
      expect(logs).not.toContain(tenant.live_api_key);
      expect(logs).not.toContain('_secret_');
    } finally {
      await server.stop();
    }
  });
});
