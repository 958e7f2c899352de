import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { jpegBytes, openPage, pageCall } from '../helpers/hosted-client';
import { processAlive } from '../helpers/process-alive';
import { createTenant, eventually, http as call, ROOT, startServer, testEnv } from '../helpers/test-server';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { RawGraphQLWs } from '../helpers/ws-client';

/**
 * Issue 30, item 5: after SIGTERM the server exits within 25 s in every case. Here the worst one
 * seen: the harness that started it (with pipes for stdout and stderr) died with kill -9, slow
 * uploads are in flight, a subscription is open and a webhook delivery job is running. The job is
 * not lost: a server started again on the same data delivers it (docs/operations.md, "Shutdown").
 */
/**
 * Only a bound on a hang: the server's own deadline (SHUTDOWN_DEADLINE_MS, 24 s, app/process-exit.ts, proved on
 * its own in test/e2e/process-exit.test.ts) ends the drain; how long the exit then takes is the machine's load,
 * which a test must not judge (issue 47). A process still alive after this has not stopped by itself.
 */
const EXIT_CEILING_MS = 90_000;
// Retries and job expiry fast enough to see within the test; the held attempt times out at 10 s, as in production.
const ENV = { WEBHOOK_RETRY_SCALE: '0.001', JOB_SUPERVISE_SECONDS: '1', JOB_RETRY_SCALE: '0.05' };

/** A parent that starts the server with pipes and copies its stdout to its own, first line: the server's pid. */
const PARENT = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, [process.argv[1]], { stdio: ['pipe', 'pipe', 'pipe'] });
process.stdout.write(JSON.stringify({ child: child.pid }) + '\\n');
child.stdout.pipe(process.stdout);
child.stderr.pipe(process.stderr);
`;

let receiver: WebhookReceiver;
const cleanups: (() => unknown)[] = [];
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await receiver.close();
});


/** Starts the built server (or `worker.js`) under a throw-away parent; resolves with both pids and the port once it is up. */
async function startUnderParent(env: NodeJS.ProcessEnv, entry = 'main.js'): Promise<{ parentPid: number; pid: number; url: string }> {
  const parent = spawn(process.execPath, ['-e', PARENT, path.join(ROOT, 'dist', 'app', entry)], { env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let pid = 0;
  cleanups.push(() => {
    if (pid && processAlive(pid)) process.kill(pid, 'SIGKILL');
    if (processAlive(parent.pid!)) parent.kill('SIGKILL');
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start')), 150_000);
    readline.createInterface({ input: parent.stdout! }).on('line', (line) => {
      try {
        const e = JSON.parse(line) as { child?: number; msg?: string; port?: number };
        if (e.child) pid = e.child;
        if ((e.msg === 'listening' && e.port) || e.msg === 'worker started') {
          clearTimeout(timer);
          resolve(e.port ?? 0);
        }
      } catch {
        /* not a log line */
      }
    });
  });
  return { parentPid: parent.pid!, pid, url: `http://127.0.0.1:${port}` };
}

/** An upload that sends 32 KiB a second (above the 16 KiB/s floor, so it is not cut as too slow) and would take minutes. */
function slowUpload(url: string, sessionId: string, credential: string): () => void {
  const total = 4 * 1024 * 1024;
  const req = http.request(`${url}/v1/hosted/sessions/${sessionId}/artifacts?class=id_document_image&side=data_page`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'image/jpeg', 'content-length': String(total) },
  });
  req.on('error', () => undefined); // the server going away is the point
  req.on('response', (res) => res.resume());
  const head = jpegBytes(2048);
  req.write(head);
  const timer = setInterval(() => req.write(Buffer.alloc(32 * 1024, 7)), 1000);
  return () => {
    clearInterval(timer);
    req.destroy();
  };
}

/** True once the process has exited after SIGTERM by itself; false if it is still alive at the ceiling. */
async function exitsAfterSigterm(pid: number): Promise<boolean> {
  process.kill(pid, 'SIGTERM');
  return eventually(async () => (processAlive(pid) ? undefined : true), EXIT_CEILING_MS, 100).catch(() => false);
}

it('exits by its own deadline after SIGTERM when its parent died, with slow uploads, a subscription and a running job, and loses no job', async () => {
  const env = testEnv(ENV);
  const server = await startUnderParent(env);
  const tenant = await createTenant({ env: { ...env, PORT: new URL(server.url).port } }, 'shutdown');
  const hook = await call(server, 'POST', '/v1/verify/webhooks', { key: tenant.test_api_key, json: { url: receiver.url('/held'), events: ['verification.completed'] } });
  expect(hook.status).toBe(201);
  // The first attempt is held open: its job is running when SIGTERM comes.
  receiver.on('/held', (n) => (n === 1 ? { status: 200, hold: true } : { status: 200 }));

  const create = async (key = tenant.test_api_key) => (await call(server, 'POST', '/v1/verify/sessions', { key, json: { flow_id: 'default', tier: 'T1' } })).body;
  // A test-mode session completes on its own clock (its webhook is the held one); the two live
  // ones the page opens wait for the page, and their uploads crawl.
  const sessions = [await create(tenant.live_api_key), await create(tenant.live_api_key)];
  await create();
  const uploads = await Promise.all(
    sessions.map(async (s: { id: string; hosted_url: string }) => {
      const page = await openPage(server, s);
      expect((await pageCall(server, page, 'POST', 'start')).status).toBe(200);
      return slowUpload(server.url, s.id, page.credential);
    }),
  );
  cleanups.push(() => uploads.forEach((stop) => stop()));
  const { client } = await RawGraphQLWs.connect(server.url, RawGraphQLWs.bearer(tenant.test_api_key));
  cleanups.push(() => client.close());
  client.subscribe('subscription { sessionStatusChanged { id status } }');
  await eventually(async () => (receiver.at('/held').length >= 1 ? true : undefined), 60_000, 100);

  process.kill(server.parentPid, 'SIGKILL'); // the harness dies: nobody reads the server's stdout any more
  await new Promise((r) => setTimeout(r, 2000)); // the uploads go on, and the server logs to a dead pipe
  expect(processAlive(server.pid)).toBe(true);
  expect(await exitsAfterSigterm(server.pid)).toBe(true);

  // The delivery that was running is made by the next server on the same data.
  await startUnderParent(env);
  const [held, redelivered] = await eventually(async () => (receiver.at('/held').length >= 2 ? receiver.at('/held') : undefined), 60_000, 200);
  expect(redelivered.headers['service-event-id']).toBe(held.headers['service-event-id']);
});

// `npm run worker` beside an API instance needs a database both reach: the embedded one belongs to one process.
const withRealPostgres = process.env.DATABASE_URL ? it : it.skip;
if (!process.env.DATABASE_URL) console.info('shutdown: the worker test needs DATABASE_URL (a shared real PostgreSQL) and is skipped');

withRealPostgres('stops `npm run worker` by its own deadline after SIGTERM when its parent died, with a job running, and loses no job', async () => {
  const env = testEnv(ENV);
  const api = await startServer({ ...env, WORKER_ENABLED: 'false' });
  cleanups.push(() => api.stop());
  const worker = await startUnderParent(env, 'worker.js');
  const tenant = await createTenant(api, 'shutdown-worker');
  expect((await call(api, 'POST', '/v1/verify/webhooks', { key: tenant.test_api_key, json: { url: receiver.url('/held-by-worker'), events: ['verification.completed'] } })).status).toBe(201);
  receiver.on('/held-by-worker', (n) => (n === 1 ? { status: 200, hold: true } : { status: 200 }));
  expect((await call(api, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' } })).status).toBe(201);
  await eventually(async () => (receiver.at('/held-by-worker').length >= 1 ? true : undefined), 60_000, 100);

  process.kill(worker.parentPid, 'SIGKILL');
  await new Promise((r) => setTimeout(r, 1000));
  expect(await exitsAfterSigterm(worker.pid)).toBe(true);

  const next = await startUnderParent(env, 'worker.js');
  cleanups.push(() => processAlive(next.pid) && process.kill(next.pid, 'SIGKILL'));
  const [held, redelivered] = await eventually(async () => (receiver.at('/held-by-worker').length >= 2 ? receiver.at('/held-by-worker') : undefined), 60_000, 200);
  expect(redelivered.headers['service-event-id']).toBe(held.headers['service-event-id']);
}, 300_000);
