import { createTenant, eventually, http, startServer, testEnv, type Tenant, type TestServer } from '../helpers/test-server';
import { startWorker, type WorkerProcess } from '../helpers/worker-process';

/**
 * An API instance that works no jobs (WORKER_ENABLED=false) beside a `npm run worker` process, on the
 * embedded database: a test-mode session queues its clock's three jobs (D4) in the creating transaction.
 * The queue they go to used to be created lazily, through the job queue's own connection, which on the
 * embedded database waits for that very transaction: the first test-mode creation never answered.
 */
describe('test mode on an API instance that runs no jobs', () => {
  let api: TestServer;
  let worker: WorkerProcess | undefined;
  let acme: Tenant;

  beforeAll(async () => {
    api = await startServer(testEnv({ WORKER_ENABLED: 'false' }));
    acme = await createTenant(api);
  }, 240_000);
  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
  });

  it('creates test-mode sessions at once, and a worker walks each through its clock to the end', async () => {
    const created = [];
    for (let i = 0; i < 2; i++) {
      const r = await http(api, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1', reference_id: `api-instance-${i}` } });
      expect(r.status).toBe(201);
      created.push(r.body.id as string);
    }
    worker = await startWorker({ ...api.env, CHECK_WORKERS: '1' });
    for (const id of created) {
      const done = await eventually(async () => {
        const r = await http(api, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key });
        return r.body.status === 'success' ? r.body : undefined;
      }, 120_000);
      expect(done).toMatchObject({ id, livemode: false, status: 'success', result: { decision: 'approved' } });
    }
  }, 300_000);
});
