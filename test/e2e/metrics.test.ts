import { createTenant, eventually, http, startServer, TestServer, testEnv } from '../helpers/test-server';

/**
 * GET /metrics and GET /readyz through the built server (docs/operations.md, "Metrics" and
 * "Probes"): one server serves /metrics behind METRICS_TOKEN, the other on its own METRICS_PORT.
 */
const TOKEN = 'metrics-token-for-tests-0123456789';
let withToken: TestServer;
let withPort: TestServer;

beforeAll(async () => {
  [withToken, withPort] = await Promise.all([startServer(testEnv({ METRICS_TOKEN: TOKEN })), startServer(testEnv({ METRICS_PORT: '0' }))]);
}); // two embedded databases starting on a loaded 2-core machine
afterAll(async () => {
  await Promise.all([withToken?.stop(), withPort?.stop()]);
});

const scrape = async (s: TestServer, token = TOKEN) => http(s, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });

describe('GET /readyz', () => {
  it('answers 200 once the database, the migrations, the job queue and the engines are ready', async () => {
    const r = await http(withToken, 'GET', '/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready', checks: { database: 'ready', migrations: 'ready', job_queue: 'ready', check_engines: 'ready' }, reasons: {}, not_ready: [] });
  });
});

describe('GET /metrics behind METRICS_TOKEN', () => {
  it('refuses a missing or wrong token with 401 and serves the Prometheus text for the right one', async () => {
    const none = await http(withToken, 'GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    expect((await scrape(withToken, `${TOKEN}x`)).status).toBe(401);
    const ok = await scrape(withToken);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.text).toMatch(/^ivs_process_resident_memory_bytes \d+/m);
  });

  it('counts requests by route template, never by raw id, and counts a rate-limit refusal in its bucket', async () => {
    const tenant = await createTenant(withToken, 'metrics');
    const id = 'vses_0000000000000000000000zz';
    expect((await http(withToken, 'GET', `/v1/verify/sessions/${id}`, { key: tenant.test_api_key })).status).toBe(404);
    // verify_create allows 60 a minute: the 61st creation is refused (docs/rate-limits.md).
    let refused = false;
    for (let i = 0; i < 70 && !refused; i++) {
      const r = await http(withToken, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'no-such-flow', tier: 'T1' } });
      refused = r.status === 429;
    }
    expect(refused).toBe(true);

    const text = await eventually(async () => {
      const t = (await scrape(withToken)).text;
      return t.includes('route="/v1/verify/sessions/:id"') ? t : undefined;
    });
    expect(text).toMatch(/^ivs_http_request_duration_seconds_count\{method="GET",route="\/v1\/verify\/sessions\/:id",status="404"\} 1$/m);
    expect(text).toMatch(/^ivs_http_request_duration_seconds_count\{method="POST",route="\/v1\/verify\/sessions",status="429"\} 1$/m);
    expect(text).not.toContain(id);
    expect((await http(withToken, 'POST', '/graphql', { key: tenant.test_api_key, json: { query: '{ __typename }' } })).status).toBe(200);
    expect((await scrape(withToken)).text).toMatch(/^ivs_http_request_duration_seconds_count\{method="POST",route="\/graphql",status="200"\} 1$/m);
    expect(text).toMatch(/^ivs_rate_limit_refusals_total\{bucket="verify_create"\} 1$/m);
  });

  it('reports each job queue with its depth and the age of its oldest due job, read at the scrape', async () => {
    const text = (await scrape(withToken)).text;
    expect(text).toMatch(/^ivs_job_queue_depth\{queue="run-checks"\} \d+$/m);
    expect(text).toMatch(/^ivs_job_queue_oldest_age_seconds\{queue="run-checks"\} [\d.e+-]+$/m);
    expect(text).toMatch(/^# TYPE ivs_sanctions_list_age_seconds gauge$/m);
    expect(text).toMatch(/^# TYPE ivs_webhook_delivery_lag_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE ivs_check_duration_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE ivs_upload_duration_seconds histogram$/m);
  });
});

describe('GET /metrics on METRICS_PORT', () => {
  it('serves the metrics on their own port without a token, and not on the main port', async () => {
    const line = await eventually(async () => withPort.logs.map((l) => { try { return JSON.parse(l) as { msg?: string; metrics_port?: number }; } catch { return {}; } }).find((e) => e.msg === 'metrics listening'));
    const own = await fetch(`http://127.0.0.1:${line.metrics_port}/metrics`);
    expect(own.status).toBe(200);
    expect(await own.text()).toMatch(/^ivs_process_resident_memory_bytes \d+/m);
    expect((await http(withPort, 'GET', '/metrics')).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${line.metrics_port}/healthz`)).status).toBe(404);
  });
});
