import { captureAndSubmit, decided, passportFields, passportPhoto } from '../helpers/live-session';
import { createTenant, eventually, http, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';
import { CHECK_WORKER, startWorker, type WorkerProcess } from '../helpers/worker-process';

/**
 * The two worker tiers of one image (docs/deploy.md): `dist/app/worker.js` with WORKER_QUEUES=jobs and
 * CHECK_WORKERS=0 works every queue but the checks and loads no engine; `dist/app/check-worker.js` takes
 * only the sessions' checks. Beside an API instance that runs no jobs, on one database.
 */
const CLEAN = { surname: 'ERIKSSON', givenNames: 'ANNA MARIA', dateOfBirth: '1986-05-02', nationality: 'SWE', documentNumber: 'SE7730142' };

const startedLine = (w: WorkerProcess): { queues?: string; check_engines?: { embedded_models?: string } } =>
  JSON.parse(w.logs.find((l) => l.includes('"worker started"'))!) as { queues?: string; check_engines?: { embedded_models?: string } };

describe('a jobs-tier worker and a check worker (WORKER_QUEUES)', () => {
  let api: TestServer;
  let acme: Tenant;
  let jobsWorker: WorkerProcess;
  let checkWorker: WorkerProcess | undefined;
  let liveSessionId: string;

  beforeAll(async () => {
    api = await startServer(testEnv({ WORKER_ENABLED: 'false', CHECK_WORKERS: '0' }));
    acme = await createTenant(api);
    jobsWorker = await startWorker({ ...api.env, WORKER_QUEUES: 'jobs', CHECK_WORKERS: '0' });
  });
  afterAll(async () => {
    await checkWorker?.stop();
    await jobsWorker?.stop();
    await api?.stop();
  });

  it('works the other queues without engines: a test session reaches its outcome, a live session waits for a check worker', async () => {
    expect(startedLine(jobsWorker)).toMatchObject({ queues: 'jobs', check_engines: { embedded_models: 'in_workers' } });
    const live = await captureAndSubmit(api, acme.live_api_key, 'T1', { document: await passportPhoto(passportFields(CLEAN)) });
    liveSessionId = live.id;
    // The test session's clock is a job of the jobs tier: it ends while the live session's checks wait untaken.
    const created = await http(api, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1', metadata: { test_outcome: 'declined' } } });
    expect(created.status).toBe(201);
    expect(await decided(api, acme.test_api_key, created.body.id)).toMatchObject({ status: 'failed' });
    const waiting = await http(api, 'GET', `/v1/verify/sessions/${liveSessionId}`, { key: acme.live_api_key });
    expect(waiting.body.status).toBe('processing');
    expect(jobsWorker.decided()).toEqual([]);
  });

  it('a check worker started by its own command takes the waiting checks and decides the live session', async () => {
    checkWorker = await startWorker({ ...api.env, CHECK_WORKERS: '1' }, undefined, CHECK_WORKER);
    expect(startedLine(checkWorker)).toMatchObject({ queues: 'checks', check_engines: { embedded_models: 'ready' } });
    expect(await decided(api, acme.live_api_key, liveSessionId, 480_000)).toMatchObject({ status: 'success', result: { decision: 'approved' } });
    // Its log line comes up to 200 ms after the decision the API shows (later on a loaded machine): waited for.
    await eventually(async () => (checkWorker!.decided().length > 0 ? true : undefined));
    expect(checkWorker.decided()).toEqual([liveSessionId]);
    expect(jobsWorker.decided()).toEqual([]);
  });
});
