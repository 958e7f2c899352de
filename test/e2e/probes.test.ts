import fs from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cli, eventually, http, loggedLine, startServer, testEnv, type TestServer } from '../helpers/test-server';

/**
 * The probes need no credential, so they publish nothing configured (docs/security.md, "Health and
 * readiness probes"): `/healthz` shows each registry and sanctions source by its origin only, never the
 * user, password, path or query of its URL (nor does the log), and `/readyz` says why a part is not
 * ready with a code and a short reason of its own, never the driver's error text.
 */

const SECRETS = ['hunter2', 'key=abc', 's3cr3t', 'token-123', 'chkey', 'listpass', 'tok-456', 'sig=', 'uppass'];

describe('/healthz with credentials in every configured URL', () => {
  let server: TestServer;
  /** A private mirror of the lists: answers 503 to everything, and keeps what it was asked. */
  let mirror: Server;
  const asked: { url: string; headers: IncomingHttpHeaders }[] = [];
  let at: string;
  beforeAll(async () => {
    mirror = createServer((req, res) => {
      asked.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
    at = `127.0.0.1:${(mirror.address() as net.AddressInfo).port}`;
    server = await startServer(
      testEnv({
        REGISTRY_GLEIF_URL: `http://svc:hunter2@${at}/gleif?key=abc`,
        REGISTRY_SEC_URL: `http://sec:s3cr3t@${at}/sec/token-123/`,
        SEC_USER_AGENT: 'Probe Test probe@example.com',
        REGISTRY_COMPANIES_HOUSE_URL: `http://${at}/ch?api_key=chkey`,
        COMPANIES_HOUSE_API_KEY: 'companies-house-key',
        SANCTIONS_URL_UN: `http://mirror:listpass@${at}/private/tok-456/un.xml?sig=abc`,
        SOCIAL_UPSTREAM_URL: `http://up:uppass@${at}/base`,
      }),
    );
  });
  afterAll(async () => {
    await server?.stop();
    mirror?.close();
  });

  it('shows each registry and sanctions source by its origin only, and logs none of their secrets', async () => {
    const h = await http(server, 'GET', '/healthz');
    expect(h.status).toBe(200);
    expect(h.body.business_registries).toMatchObject({
      gleif: { enabled: true, url: `http://${at}` },
      sec_edgar: { enabled: true, url: `http://${at}` },
      uk_ch: { enabled: true, url: `http://${at}` },
    });
    expect(h.body.sanctions_lists.un.source).toBe(`http://${at}`);
    for (const secret of SECRETS) expect(h.text).not.toContain(secret);
    expect(h.text).not.toContain(`@${at}`);

    // The list's download went out with the user and password as Basic auth, and its failure is logged by origin.
    // Asked for by the CLI, not left to the start-up catch-up: on the shared CI database another file may
    // have loaded the UN list within 24 h, and then no start-up download happens.
    const refresh = await cli(server.env, ['sanctions', 'refresh', '--list', 'un', '--json']);
    expect(refresh.code).toBe(0);
    await loggedLine(server, 'sanctions refresh failed');
    const download = asked.find((a) => a.url.startsWith('/private/'));
    expect(download).toMatchObject({ url: '/private/tok-456/un.xml?sig=abc', headers: { authorization: `Basic ${Buffer.from('mirror:listpass').toString('base64')}` } });
    await loggedLine(server, `"reason":"HTTP 503 from http://${at}"`);
    const logs = await server.settledLogs();
    for (const secret of SECRETS) expect(logs).not.toContain(secret);
  });
});

/**
 * A proxy in front of the database the test can cut: its listener closed and every connection
 * through it destroyed, so the server's next query fails the way a lost database does. With
 * DATABASE_URL, a TCP proxy to that server; on the embedded database, a unix socket in a second
 * DATA_DIR forwarding to the first server's (the server uses a socket it finds in its DATA_DIR).
 */
async function databaseProxy(listen: net.ListenOptions, target: net.NetConnectOpts): Promise<{ cut(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(listen, resolve));
  return {
    cut: async () => {
      const closed = new Promise<void>((resolve) => proxy.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

describe('/readyz when the database is lost', () => {
  let owner: TestServer | undefined;
  let server: TestServer;
  let proxy: { cut(): Promise<void> };

  beforeAll(async () => {
    if (process.env.DATABASE_URL) {
      const url = new URL(process.env.DATABASE_URL);
      const port = await new Promise<number>((resolve) => {
        const probe = net.createServer().listen(0, '127.0.0.1', () => {
          const { port: p } = probe.address() as net.AddressInfo;
          probe.close(() => resolve(p));
        });
      });
      proxy = await databaseProxy({ host: '127.0.0.1', port }, { host: url.hostname, port: Number(url.port || 5432) });
      url.host = `127.0.0.1:${port}`;
      server = await startServer(testEnv({ DATABASE_URL: url.toString() }));
    } else {
      owner = await startServer(testEnv());
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-probe-'));
      proxy = await databaseProxy({ path: path.join(dataDir, '.s.PGSQL.5432') }, { path: path.join(owner.env.DATA_DIR!, '.s.PGSQL.5432') });
      server = await startServer(testEnv({ DATA_DIR: dataDir }));
    }
  });
  afterAll(async () => {
    await server?.kill9();
    await owner?.stop();
  });

  it('answers a code and a short reason per part, never the connection error, and logs the error for the operator', async () => {
    const ready = await http(server, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', not_ready: [] });

    await proxy.cut();
    const lost = await eventually(async () => {
      const r = await http(server, 'GET', '/readyz');
      return r.status === 503 ? r : undefined;
    }, 60_000, 250);
    expect(lost.body).toMatchObject({
      status: 'not_ready',
      checks: { database: 'unavailable' },
      reasons: { database: 'the database does not answer' },
      not_ready: expect.arrayContaining(['database']),
    });
    for (const [part, code] of Object.entries(lost.body.checks as Record<string, string>)) {
      expect(code).toMatch(/^(ready|unavailable|timeout)$/);
      if (code !== 'ready') expect(lost.body.reasons[part]).toMatch(/^(the [a-z ]+ (does not answer|could not be read)|no answer within 2 s)$/);
    }
    for (const raw of ['ECONNREFUSED', 'ENOENT', 'Connection terminated', '127.0.0.1', '.s.PGSQL', os.tmpdir()]) expect(lost.text).not.toContain(raw);
    const health = await http(server, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'degraded', database: 'down' });
    await loggedLine(server, 'readiness: not ready');
  });
});
