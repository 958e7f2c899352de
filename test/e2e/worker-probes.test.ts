import { ENGINES_OFF, testEnv } from '../helpers/test-server';
import { startWorker, type WorkerProcess } from '../helpers/worker-process';

/**
 * A worker has no HTTP of its own; with METRICS_PORT it serves /healthz, /readyz and /metrics there, so an
 * orchestrator can probe it and a scraper read the check engines' and queues' metrics (docs/deploy.md).
 */
describe('the worker probe port (METRICS_PORT on dist/app/worker.js)', () => {
  let worker: WorkerProcess;
  let base: string;
  beforeAll(async () => {
    worker = await startWorker({ ...testEnv({ ...ENGINES_OFF, CHECK_WORKERS: '1' }), METRICS_PORT: '0' });
    const started = worker.logs.map((l) => { try { return JSON.parse(l) as { msg?: string; probe_port?: number }; } catch { return {}; } }).find((e) => e.msg === 'worker started');
    expect(started?.probe_port).toEqual(expect.any(Number));
    base = `http://127.0.0.1:${started!.probe_port}`;
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('answers /readyz ready and /healthz ok', async () => {
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
    const live = await fetch(`${base}/healthz`);
    expect(live.status).toBe(200);
  });

  it('serves the queue gauges on /metrics without a token, and nothing else', async () => {
    const scrape = await fetch(`${base}/metrics`);
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    // The autoscaler's signals (deploy/kubernetes/hpa.yaml); the depth has a sample per queue with jobs waiting only.
    expect(text).toMatch(/^# TYPE ivs_job_queue_depth gauge$/m);
    expect(text).toMatch(/^ivs_job_queue_oldest_age_seconds\{queue="run-checks"\} 0$/m);
    const other = await fetch(`${base}/v1/verify/sessions`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('closes its probe port and exits 0 on SIGTERM', async () => {
    worker.proc.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => worker.proc.once('exit', resolve));
    expect(code).toBe(0);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
