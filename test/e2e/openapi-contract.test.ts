import { request } from 'node:http';
import { expectToMatchContract, openapiDocument } from '../helpers/openapi-contract';
import { createTenant, eventually, http, startServer, Tenant, TestServer } from '../helpers/test-server';

let server: TestServer;
let acme: Tenant;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server);
});
afterAll(async () => {
  await server?.stop();
});

describe('/openapi.yaml', () => {
  it('is OpenAPI 3.1 with info.version 1.0.0 and the served document is the checked one', async () => {
    const served = await http(server, 'GET', '/openapi.yaml');
    expect(served.headers.get('content-type')).toContain('yaml');
    expect(openapiDocument).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./), info: { version: '1.0.0' } });
    expect(served.text).toContain('version: 1.0.0');
  });

  it('describes the real responses of every session operation, success and error', async () => {
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T3', metadata: { test_outcome: 'review' } } });
    expectToMatchContract('POST', '/v1/verify/sessions', created);
    const quick = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { tiers: ['T5'], reference: 'r' } });
    expectToMatchContract('POST', '/v1/verify/sessions', quick);
    expectToMatchContract('POST', '/v1/verify/sessions', await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { tier: 'T6', flow_id: 'default' } }));
    expectToMatchContract('POST', '/v1/verify/sessions', await http(server, 'POST', '/v1/verify/sessions', { json: { tier: 'T1', flow_id: 'default' } }));
    expectToMatchContract('POST', '/v1/verify/sessions', await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, body: 'x', headers: { 'content-type': 'text/plain' } }));

    const id = created.body.id as string;
    expectToMatchContract('GET', '/v1/verify/sessions/{id}', await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key }));
    expectToMatchContract('GET', '/v1/verify/sessions/{id}', await http(server, 'GET', '/v1/verify/sessions/vses_AAAAAAAAAAAAAAAAAAAAAAAA', { key: acme.test_api_key }));

    const inReview = await eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key });
      return r.body.status === 'manual_review' ? r : undefined;
    });
    expectToMatchContract('GET', '/v1/verify/sessions/{id}', inReview);
    const done = await eventually(async () => {
      const r = await http(server, 'GET', `/v1/verify/sessions/${quick.body.id}`, { key: acme.test_api_key });
      return r.body.status === 'success' ? r : undefined;
    });
    expectToMatchContract('GET', '/v1/verify/sessions/{id}', done);

    const review = (json: unknown, sid = id) => http(server, 'POST', `/v1/verify/manual-review/${sid}`, { key: acme.test_api_key, json });
    expectToMatchContract('POST', '/v1/verify/manual-review/{id}', await review({ decision: 'approve', reason: 'x' }));
    expectToMatchContract('POST', '/v1/verify/manual-review/{id}', await review({ decision: 'reject', reason: 'document expired' }));
    expectToMatchContract('POST', '/v1/verify/manual-review/{id}', await review({ decision: 'reject', reason: 'document expired' }));
    expectToMatchContract('POST', '/v1/verify/manual-review/{id}', await review({ decision: 'reject', reason: 'document expired' }, 'vses_AAAAAAAAAAAAAAAAAAAAAAAA'));
  });

  it('describes the bulk-import operations: the job, its progress, each result line, and the refusals', async () => {
    const ndjson = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n');
    const post = (body: string, type = 'application/x-ndjson', key: string | undefined = acme.test_api_key) =>
      http(server, 'POST', '/v1/admin/bulk-import', { key, body, headers: { 'content-type': type } });
    const started = await post(ndjson([{ flow_id: 'default', tier: 'T1', reference_id: 'contract-1', email: 'contract@example.com' }, { flow_id: 'default', tier: 'T1', reference_id: 'contract-1' }, { tier: 'T6', flow_id: 'default' }]));
    expectToMatchContract('POST', '/v1/admin/bulk-import', started);
    expectToMatchContract('POST', '/v1/admin/bulk-import', await post(JSON.stringify({ records: [{ tiers: ['T2'], reference: 'contract-2' }] }), 'application/json'));
    expectToMatchContract('POST', '/v1/admin/bulk-import', await post('', 'application/x-ndjson'));
    expectToMatchContract('POST', '/v1/admin/bulk-import', await post('tier', 'text/csv'));
    expectToMatchContract('POST', '/v1/admin/bulk-import', await post('{}', 'application/x-ndjson', undefined));
    const done = await eventually(async () => {
      const r = await http(server, 'GET', `/v1/admin/bulk-import/${started.body.id}`, { key: acme.test_api_key });
      return r.body.status === 'completed' ? r : undefined;
    });
    expectToMatchContract('GET', '/v1/admin/bulk-import/{id}', done);
    expectToMatchContract('GET', '/v1/admin/bulk-import/{id}', await http(server, 'GET', '/v1/admin/bulk-import/bimp_AAAAAAAAAAAAAAAAAAAAAAAA', { key: acme.test_api_key }));
    const results = await http(server, 'GET', `/v1/admin/bulk-import/${started.body.id}/results`, { key: acme.test_api_key });
    const lines = results.text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { outcome: string });
    expect(lines.map((l) => l.outcome)).toEqual(['created', 'duplicate', 'rejected']);
    // The document describes one line of the stream.
    for (const line of lines) expectToMatchContract('GET', '/v1/admin/bulk-import/{id}/results', { status: results.status, headers: results.headers, body: line });
    expectToMatchContract('GET', '/v1/admin/bulk-import/{id}/results', await http(server, 'GET', '/v1/admin/bulk-import/bimp_AAAAAAAAAAAAAAAAAAAAAAAA/results', { key: acme.test_api_key }));
  });

  it('documents the 400 and 413 a route that takes no body answers to a malformed or oversized JSON body sent anyway', async () => {
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
    const id = created.body.id as string;
    const oversized = JSON.stringify({ reason: 'x'.repeat(1024 * 1024 + 1) });
    const routes: [string, string][] = [
      ['GET', '/v1/verify/sessions/{id}'],
      ['POST', '/v1/verify/sessions/{id}/cancel'],
      ['GET', '/v1/developer/webhooks'],
    ];
    for (const [method, template] of routes) {
      for (const [text, status, code] of [['{"reason":', 400, 'invalid_request'], [oversized, 413, 'payload_too_large']] as const) {
        const answer = await withJsonBody(method, template.replace('{id}', id), text);
        expect({ route: `${method} ${template}`, status: answer.status, code: (answer.body as { error?: { code?: string } }).error?.code }).toEqual({ route: `${method} ${template}`, status, code });
        expectToMatchContract(method, template, answer);
      }
    }
    // Refused before the handler ran: the session was not cancelled.
    expect((await http(server, 'GET', `/v1/verify/sessions/${id}`, { key: acme.test_api_key })).body.status).not.toBe('cancelled');
  });

  it('describes /healthz', async () => {
    expectToMatchContract('GET', '/healthz', await http(server, 'GET', '/healthz'));
  });
});

/** A JSON body on any method, a GET's too (fetch refuses one), with the tenant's key. */
function withJsonBody(method: string, pathname: string, text: string): Promise<{ status: number; body: unknown; headers: Headers }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${pathname}`, { method, headers: { authorization: `Bearer ${acme.test_api_key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown, headers });
      });
    });
    // The server may answer a body over the limit before it has read it all, and close.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    req.end(text);
  });
}
