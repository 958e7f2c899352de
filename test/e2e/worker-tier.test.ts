import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { captureAndSubmit, decided, passportFields, passportPhoto } from '../helpers/live-session';
import { createTenant, eventually, http, ROOT, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';
import { startWorker, type WorkerProcess } from '../helpers/worker-process';

/**
 * The check-worker tier (docs/operations.md, "Workers"): one API instance that runs no jobs and no
 * engines (WORKER_ENABLED=false CHECK_WORKERS=0) and two `npm run worker` processes, on one database.
 * Embedded: the API's process serves PGlite on the socket in DATA_DIR and the workers connect to it
 * with the same DATA_DIR; with DATABASE_URL (and REDIS_URL) they share the real services instead.
 * Live T1 sessions go through the hosted API; each must be decided once, by one of the workers.
 */
const SESSIONS = 8;
const CLEAN = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };
// Live webhook URLs must be https: a receiver with the test certificate, which the workers trust through NODE_EXTRA_CA_CERTS.
const TLS_DIR = path.join(ROOT, 'test', 'fixtures', 'tls');

type Event = { id: string; type: string; data: { session_id: string; status: string } };

function startHttpsReceiver(): Promise<{ port: number; events: Event[]; close(): Promise<void> }> {
  const events: Event[] = [];
  const server = https.createServer({ key: fs.readFileSync(path.join(TLS_DIR, 'localhost.key')), cert: fs.readFileSync(path.join(TLS_DIR, 'localhost.crt')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      events.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Event);
      res.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as { port: number }).port,
        events,
        close: () => {
          server.closeAllConnections();
          return new Promise<void>((r) => server.close(() => r()));
        },
      }),
    ),
  );
}

describe('one API instance and two workers on one database', () => {
  let api: TestServer;
  let workers: WorkerProcess[] = [];
  let acme: Tenant;
  let receiver: Awaited<ReturnType<typeof startHttpsReceiver>>;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    api = await startServer(testEnv({ WORKER_ENABLED: 'false', CHECK_WORKERS: '0' }));
    acme = await createTenant(api);
    // The workers get the API's environment (its DATA_DIR or DATABASE_URL, its JOB_SCHEMA), one engine thread each on 2 cores.
    const workerEnv = { ...api.env, CHECK_WORKERS: '1', NODE_EXTRA_CA_CERTS: path.join(TLS_DIR, 'localhost.crt') };
    workers = await Promise.all([startWorker(workerEnv), startWorker(workerEnv)]);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await api?.stop();
    await receiver?.close();
  });

  it('says in /healthz that its engines run in the workers, and has loaded no model', async () => {
    const h = await http(api, 'GET', '/healthz');
    expect(h.body.check_engines).toEqual({ document: 'embedded', face_match: 'embedded', liveness: 'embedded', anti_spoof: 'embedded', embedded_models: 'in_workers' });
  });

  it('decides every live T1 session once, in one of the workers, with one decision and one webhook event each; both workers take work', async () => {
    const hook = await http(api, 'POST', '/v1/verify/webhooks', { key: acme.live_api_key, json: { url: `https://localhost:${receiver.port}/hook`, events: ['verification.completed'] } });
    expect(hook.status).toBe(201);
    const document = await passportPhoto(passportFields(CLEAN));
    const ids = (await Promise.all(Array.from({ length: SESSIONS }, () => captureAndSubmit(api, acme.live_api_key, 'T1', { document })))).map((s) => s.id);
    // Read one after another: the workers decide them together meanwhile, and the reads stay inside the tenant's read rate limit.
    const sessions = [];
    for (const id of ids) sessions.push(await decided(api, acme.live_api_key, id, 240_000));
    for (const s of sessions) expect(s).toMatchObject({ status: 'success', livemode: true, result: { decision: 'approved', achieved_tier: 'T1' } });

    // One automated decision each in the decision history.
    for (const id of ids) {
      const history = await http(api, 'GET', `/v1/verify/sessions/${id}/decisions`, { key: acme.live_api_key });
      expect(history.status).toBe(200);
      expect(history.body.data.map((d: { source: string; to_status: string }) => [d.source, d.to_status])).toEqual([['automated', 'success']]);
    }
    // One verification.completed event each (one event id; a retried delivery would repeat the id, not add one).
    const events = await eventually(async () => (new Set(receiver.events.map((e) => e.data.session_id)).size >= SESSIONS ? receiver.events : undefined), 60_000);
    for (const id of ids) {
      const of = events.filter((e) => e.data.session_id === id);
      expect(new Set(of.map((e) => e.id)).size).toBe(1);
      expect(of[0]).toMatchObject({ type: 'verification.completed', data: { status: 'success' } });
    }
    // Each session in exactly one worker's `checks decided` lines, none in the API's, and each worker decided some.
    // A worker writes its log lines up to 200 ms after logging them (src/logger.ts buffers them), later on a
    // loaded machine: the last decision's line may still be on its way when its webhook has already arrived.
    const decidedBy = () => workers.map((w) => w.decided().filter((id) => ids.includes(id)));
    await eventually(async () => (ids.every((id) => decidedBy().some((d) => d.includes(id))) ? true : undefined)).catch(() => undefined);
    const byWorker = decidedBy();
    expect([...byWorker[0], ...byWorker[1]].sort()).toEqual([...ids].sort());
    expect(byWorker[0].length).toBeGreaterThan(0);
    expect(byWorker[1].length).toBeGreaterThan(0);
    const apiLog = await api.settledLogs();
    expect(apiLog).not.toContain('checks decided');
    expect(apiLog).not.toContain('check engines loaded');
  });
});

describe('CHECK_WORKERS=0 where jobs run', () => {
  it('is refused by a server that runs the jobs (the default), naming the key', async () => {
    await expect(startServer(testEnv({ CHECK_WORKERS: '0' }))).rejects.toThrow(/CHECK_WORKERS: 0 .*WORKER_ENABLED=false/);
  });

  it('is refused by a worker, whatever WORKER_ENABLED says', async () => {
    await expect(startWorker(testEnv({ WORKER_ENABLED: 'false', CHECK_WORKERS: '0' }))).rejects.toThrow(/CHECK_WORKERS: 0/);
  });
});
