import type { Client } from 'pg';
import { dbClient } from '../helpers/hosted-client';
import { cli, createTenant, eventually, http, startServer, testEnv, type HttpResult, type Tenant, type TestServer } from '../helpers/test-server';
import { RawGraphQLWs } from '../helpers/ws-client';

/**
 * Bulk import (docs/decisions.md D17, docs/api-behaviour.md "Bulk import"): JSON and NDJSON bodies, both
 * create shapes, duplicates by reference_id, rejected lines with their numbers, the limits, the
 * mailed link, tenant and mode isolation, progress over graphql-ws, and a server killed mid-import.
 */

type ResultLine = { line: number; reference_id: string | null; outcome: string; session_id?: string; url?: string; error?: { code: string; message: string } };

let server: TestServer;
let acme: Tenant;
let globex: Tenant;

beforeAll(async () => {
  // Many imports from one key: the bulk_import bucket (5 a minute) is tested in rate-limit.test.ts.
  server = await startServer(testEnv({ RATE_LIMIT_ENABLED: 'false' }));
  [acme, globex] = await Promise.all([createTenant(server, 'Acme Bulk'), createTenant(server, 'Globex Bulk')]);
});
afterAll(async () => {
  await server?.stop();
});

function ndjson(records: unknown[]): string {
  return records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n');
}

async function importNdjson(target: TestServer, key: string, body: string): Promise<HttpResult> {
  return http(target, 'POST', '/v1/admin/bulk-import', { key, body, headers: { 'content-type': 'application/x-ndjson' } });
}

async function completed(target: TestServer, key: string, id: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const r = await http(target, 'GET', `/v1/admin/bulk-import/${id}`, { key });
    return r.body?.status === 'completed' ? (r.body as Record<string, unknown>) : undefined;
  }, timeoutMs, 200);
}

async function results(target: TestServer, key: string, id: string): Promise<ResultLine[]> {
  const r = await fetch(`${target.url}/v1/admin/bulk-import/${id}/results`, { headers: { authorization: `Bearer ${key}` } });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  const text = await r.text();
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as ResultLine);
}

describe('POST /v1/admin/bulk-import', () => {
  it('creates a session per JSON record, in either create shape, and rejects a bad one with its line', async () => {
    const r = await http(server, 'POST', '/v1/admin/bulk-import', {
      key: acme.test_api_key,
      json: {
        records: [
          { flow_id: 'default', tier: 'T1', reference_id: 'json-1' },
          { tiers: ['T0', 'T2'], reference: 'json-2', metadata: { test_outcome: 'declined' } },
          { flow_id: 'default', tier: 'T9', reference_id: 'json-3' },
        ],
      },
    });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ object: 'bulk_import', livemode: false, total: 3, created: 0, duplicates: 0, rejected: 1, completed_at: null });
    expect(r.body.id).toMatch(/^bimp_[0-9A-Za-z]{24}$/);
    expect(['queued', 'processing']).toContain(r.body.status);
    const done = await completed(server, acme.test_api_key, r.body.id);
    expect(done).toMatchObject({ id: r.body.id, status: 'completed', total: 3, created: 2, duplicates: 0, rejected: 1 });
    expect(new Date(done.completed_at as string).getTime()).toBeGreaterThanOrEqual(new Date(r.body.created_at).getTime());

    const lines = await results(server, acme.test_api_key, r.body.id);
    expect(lines.map((l) => [l.line, l.reference_id, l.outcome])).toEqual([
      [1, 'json-1', 'created'],
      [2, 'json-2', 'created'],
      [3, 'json-3', 'rejected'],
    ]);
    expect(lines[2].error).toEqual({ code: 'invalid_request', message: expect.stringContaining('tier') });
    expect(lines[2].session_id).toBeUndefined();
    // The sessions are ordinary ones: readable by the key, with the record's fields (the quickstart shape mapped as D1 says).
    const second = await http(server, 'GET', `/v1/verify/sessions/${lines[1].session_id}`, { key: acme.test_api_key });
    expect(second.body).toMatchObject({ id: lines[1].session_id, reference_id: 'json-2', tier: 'T2', livemode: false });
    expect(lines[0].url).toMatch(new RegExp(`/hosted/${lines[0].session_id}\\?token=`));
    const page = await fetch(lines[0].url!.replace(/^https?:\/\/[^/]+/, server.url));
    expect(page.status).toBe(200);
  });

  it('reads NDJSON: a bad line is rejected with its number, duplicates of the file and of an existing session are reported, the others go on', async () => {
    const existing = await http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json: { flow_id: 'default', tier: 'T1', reference_id: 'nd-existing' } });
    expect(existing.status).toBe(201);
    const body = ndjson([
      { flow_id: 'default', tier: 'T1', reference_id: 'nd-1' },
      '{"flow_id": "default", "tier": ', // line 2: not JSON
      '',
      { flow_id: 'default', tier: 'T1', reference_id: 'nd-1' }, // line 4: the same reference as line 1
      { flow_id: 'default', tier: 'T1', reference_id: 'nd-existing' }, // line 5: names an existing session
      { flow_id: 'default', tier: 'T1', reference_id: 'nd-5', colour: 'blue' }, // line 6: unknown field
      { tier: 'T1', reference: 'nd-6' }, // line 7: quickstart shape, default flow
      [1, 2], // line 8: not an object
    ]);
    const r = await importNdjson(server, acme.test_api_key, `${body}\n`);
    expect(r.status).toBe(202);
    expect(r.body.total).toBe(7);
    const done = await completed(server, acme.test_api_key, r.body.id);
    expect(done).toMatchObject({ total: 7, created: 2, duplicates: 2, rejected: 3 });
    const lines = await results(server, acme.test_api_key, r.body.id);
    expect(lines.map((l) => [l.line, l.outcome, l.error?.code ?? null])).toEqual([
      [1, 'created', null],
      [2, 'rejected', 'invalid_request'],
      [4, 'duplicate', 'duplicate'],
      [5, 'duplicate', 'duplicate'],
      [6, 'rejected', 'invalid_request'],
      [7, 'created', null],
      [8, 'rejected', 'invalid_request'],
    ]);
    expect(lines[1].error!.message).toBe('Line 2 is not valid JSON');
    expect(lines[2].session_id).toBe(lines[0].session_id);
    expect(lines[3].session_id).toBe(existing.body.id);
    expect(lines[3].url).toBeUndefined();
    expect(lines[4].error!.message).toContain('colour');
    // One session per reference: the list by reference_id finds exactly one.
    const listed = await http(server, 'POST', '/graphql', { key: acme.test_api_key, json: { query: '{ sessions(first: 10, referenceId: "nd-1") { edges { node { id } } } }' } });
    expect(listed.body.data.sessions.edges).toHaveLength(1);
  });

  it('makes one session per reference when two imports with the same references run at once', async () => {
    const records = Array.from({ length: 600 }, (_, i) => ({ flow_id: 'default', tier: 'T0', reference_id: `race-${i}` }));
    const [a, b] = await Promise.all([
      http(server, 'POST', '/v1/admin/bulk-import', { key: globex.live_api_key, json: { records } }),
      http(server, 'POST', '/v1/admin/bulk-import', { key: globex.live_api_key, json: { records: [...records].reverse() } }),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    const [doneA, doneB] = await Promise.all([completed(server, globex.live_api_key, a.body.id, 60_000), completed(server, globex.live_api_key, b.body.id, 60_000)]);
    expect((doneA.created as number) + (doneB.created as number)).toBe(600);
    expect((doneA.duplicates as number) + (doneB.duplicates as number)).toBe(600);
    const created = [...(await results(server, globex.live_api_key, a.body.id)), ...(await results(server, globex.live_api_key, b.body.id))].filter((l) => l.outcome === 'created');
    expect(new Set(created.map((l) => l.reference_id)).size).toBe(600);
  });

  it('refuses 10,001 records, a body over 25 MiB, an empty or unparsable body and another content type, with the error body', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => ({ flow_id: 'default', tier: 'T0', reference_id: `too-many-${i}` }));
    const tooMany = await http(server, 'POST', '/v1/admin/bulk-import', { key: acme.test_api_key, json: { records: many } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'too_many_records', message: expect.stringContaining('line 10001') });
    expect(tooMany.body.error.request_id).toBe(tooMany.headers.get('request-id'));

    const line = JSON.stringify({ flow_id: 'default', tier: 'T0', metadata: { note: 'x'.repeat(4000) } });
    const huge = Array.from({ length: Math.ceil((25 * 1024 * 1024) / line.length) + 1 }, () => line).join('\n');
    expect(huge.length).toBeGreaterThan(25 * 1024 * 1024);
    const tooBig = await importNdjson(server, acme.test_api_key, huge);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('payload_too_large');

    const empty = await importNdjson(server, acme.test_api_key, '');
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('invalid_request');
    const blank = await importNdjson(server, acme.test_api_key, '\n\n  \n');
    expect(blank.status).toBe(400);
    const noRecords = await http(server, 'POST', '/v1/admin/bulk-import', { key: acme.test_api_key, json: { records: [] } });
    expect(noRecords.status).toBe(400);
    const broken = await http(server, 'POST', '/v1/admin/bulk-import', { key: acme.test_api_key, body: '{"records": [', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_request');
    const csv = await http(server, 'POST', '/v1/admin/bulk-import', { key: acme.test_api_key, body: 'tier\nT1', headers: { 'content-type': 'text/csv' } });
    expect(csv.status).toBe(415);
    expect(csv.body.error.code).toBe('unsupported_media_type');
  });

  it('mails the hosted link to a record’s email, and rejects an address that is not one', async () => {
    const email = `bulk-${Date.now()}@example.com`;
    const r = await importNdjson(
      server,
      acme.test_api_key,
      ndjson([
        { flow_id: 'default', tier: 'T1', reference_id: 'mail-1', email },
        { flow_id: 'default', tier: 'T1', reference_id: 'mail-2', email: 'not an address' },
        { flow_id: 'default', tier: 'T1', reference_id: 'mail-3', locale: 'de-DE', email: `de-${email}` },
      ]),
    );
    expect(r.status).toBe(202);
    await completed(server, acme.test_api_key, r.body.id);
    const lines = await results(server, acme.test_api_key, r.body.id);
    expect(lines.map((l) => l.outcome)).toEqual(['created', 'rejected', 'created']);
    expect(lines[1].error!.message).toContain('email');
    const mail = await eventually(async () => {
      const listed = (await cli(server.env, ['mail', 'list', '--to', email, '--json'])).json as { messages: { subject: string; text: string }[] };
      return listed.messages.length ? listed.messages : undefined;
    });
    expect(mail).toHaveLength(1);
    expect(mail[0].subject).toBe('Acme Bulk: please verify your identity');
    expect(mail[0].text).toContain(lines[0].url!);
    const german = (await cli(server.env, ['mail', 'list', '--to', `de-${email}`, '--json'])).json as { messages: { subject: string; text: string }[] };
    expect(german.messages[0].subject).toBe('Acme Bulk: Bitte bestätigen Sie Ihre Identität');
    expect(german.messages[0].text).toContain(lines[2].url!);
  });

  it('answers 404 to another tenant and to the other mode, for the job and its results', async () => {
    const r = await importNdjson(server, acme.test_api_key, ndjson([{ flow_id: 'default', tier: 'T0', reference_id: 'iso-1' }]));
    expect(r.status).toBe(202);
    for (const key of [globex.test_api_key, acme.live_api_key]) {
      for (const path of [`/v1/admin/bulk-import/${r.body.id}`, `/v1/admin/bulk-import/${r.body.id}/results`]) {
        const other = await http(server, 'GET', path, { key });
        expect(other.status).toBe(404);
        expect(other.body.error.code).toBe('not_found');
      }
    }
    const unknown = await http(server, 'GET', '/v1/admin/bulk-import/bimp_000000000000000000000000', { key: acme.test_api_key });
    expect(unknown.status).toBe(404);
    const graphqlOther = await http(server, 'POST', '/graphql', { key: globex.test_api_key, json: { query: 'query($id: ID!) { bulkImport(id: $id) { id } }', variables: { id: r.body.id } } });
    expect(graphqlOther.body.data.bulkImport).toBeNull();
  });

  it('reports progress over graphql-ws until the import completes', async () => {
    const records = Array.from({ length: 1200 }, (_, i) => ({ flow_id: 'default', tier: 'T0', reference_id: `ws-${i}` }));
    const r = await http(server, 'POST', '/v1/admin/bulk-import', { key: acme.live_api_key, json: { records } });
    expect(r.status).toBe(202);
    const { client, acked } = await RawGraphQLWs.connect(server.url, RawGraphQLWs.bearer(acme.live_api_key));
    expect(acked).toBe(true);
    const sub = client.subscribe('subscription($id: ID!) { bulkImport(id: $id) { id status total created duplicates rejected completedAt } }', { id: r.body.id });
    await sub.waitForComplete(60_000);
    expect(sub.errors).toEqual([]);
    const seen = sub.data.map((d) => d.bulkImport as { status: string; created: number; total: number; completedAt: string | null });
    expect(seen.at(-1)).toMatchObject({ id: r.body.id, status: 'completed', total: 1200, created: 1200, duplicates: 0, rejected: 0 });
    expect(seen.at(-1)!.completedAt).not.toBeNull();
    const counts = seen.map((s) => s.created);
    expect([...counts].sort((a, b) => a - b)).toEqual(counts); // never goes back
    client.ws.close();

    // Another tenant's key learns nothing: an error, then the end.
    const other = await RawGraphQLWs.connect(server.url, RawGraphQLWs.bearer(globex.live_api_key));
    const refused = other.client.subscribe('subscription($id: ID!) { bulkImport(id: $id) { id } }', { id: r.body.id });
    await refused.waitForError();
    expect(refused.errors[0].extensions.code).toBe('not_found');
    expect(refused.data).toEqual([]);
    other.client.ws.close();
  });
});

describe('a server killed mid-import', () => {
  let db: Client | undefined;
  const servers: TestServer[] = [];
  afterAll(async () => {
    await db?.end();
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('goes on after a restart on the same database: every record processed once, one session per record', async () => {
    // Small batches and a short lease, so the kill lands between batches and the job is taken back soon.
    const env = testEnv({ RATE_LIMIT_ENABLED: 'false', BULK_IMPORT_BATCH_SIZE: '100', BULK_IMPORT_LEASE_SECONDS: '6', JOB_SUPERVISE_SECONDS: '1', JOB_RETRY_SCALE: '0.5' });
    const first = await startServer(env);
    servers.push(first);
    const tenant = await createTenant(first, 'Restart Bulk');
    const N = 4000;
    const records = Array.from({ length: N }, (_, i) => ({ flow_id: 'default', tier: 'T1', reference_id: `restart-${i}` }));
    const r = await http(first, 'POST', '/v1/admin/bulk-import', { key: tenant.live_api_key, json: { records } });
    expect(r.status).toBe(202);
    const before = await eventually(async () => {
      const g = await http(first, 'GET', `/v1/admin/bulk-import/${r.body.id}`, { key: tenant.live_api_key });
      return g.body.created >= 300 ? (g.body as { created: number }) : undefined;
    }, 60_000, 50);
    await first.kill9();
    expect(before.created).toBeLessThan(N);

    const second = await startServer(env);
    servers.push(second);
    const done = await completed(second, tenant.live_api_key, r.body.id, 120_000);
    expect(done).toMatchObject({ total: N, created: N, duplicates: 0, rejected: 0 });
    const lines = await results(second, tenant.live_api_key, r.body.id);
    expect(lines).toHaveLength(N);
    expect(new Set(lines.map((l) => l.session_id)).size).toBe(N);
    db = await dbClient(second);
    const counted = await db.query(`SELECT count(*)::int AS n, count(DISTINCT reference_id)::int AS refs FROM sessions WHERE tenant_id = $1`, [tenant.tenant_id]);
    expect(counted.rows[0]).toEqual({ n: N, refs: N });
    // Each session's creation event was written once, with it.
    const events = await db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE tenant_id = $1 AND type = 'session.status_changed'`, [tenant.tenant_id]);
    expect(events.rows[0].n).toBe(N);
    // Nothing personal stays once processed: the sealed records are gone.
    const kept = await db.query(`SELECT count(*)::int AS n FROM bulk_import_records WHERE import_id = $1 AND (record_sealed IS NOT NULL OR email_sealed IS NOT NULL)`, [r.body.id]);
    expect(kept.rows[0].n).toBe(0);
  });
});

const withRealPostgres = process.env.DATABASE_URL ? it : it.skip;
if (!process.env.DATABASE_URL) console.info('bulk-import: the two-instance test needs DATABASE_URL (a shared real PostgreSQL) and is skipped');

describe('two instances on one database', () => {
  const servers: TestServer[] = [];
  let db: Client | undefined;
  afterAll(async () => {
    await db?.end();
    await Promise.all(servers.map((s) => s.stop()));
  });

  withRealPostgres('make one session per reference when each runs an import of the same references', async () => {
    // One environment, so both instances share one job queue; each works one import at a time, so the two run at once.
    const shared = testEnv({ RATE_LIMIT_ENABLED: 'false', BULK_IMPORT_BATCH_SIZE: '50' });
    const [a, b] = await Promise.all([startServer(shared), startServer(shared)]);
    servers.push(a, b);
    const tenant = await createTenant(a, 'Two Instances Bulk');
    const records = Array.from({ length: 1000 }, (_, i) => ({ flow_id: 'default', tier: 'T0', reference_id: `two-${i}` }));
    const [ra, rb] = await Promise.all([
      http(a, 'POST', '/v1/admin/bulk-import', { key: tenant.live_api_key, json: { records } }),
      http(b, 'POST', '/v1/admin/bulk-import', { key: tenant.live_api_key, json: { records: [...records].reverse() } }),
    ]);
    expect([ra.status, rb.status]).toEqual([202, 202]);
    const [da, dbDone] = await Promise.all([completed(a, tenant.live_api_key, ra.body.id, 90_000), completed(b, tenant.live_api_key, rb.body.id, 90_000)]);
    expect((da.created as number) + (dbDone.created as number)).toBe(1000);
    db = await dbClient(a);
    const counted = await db.query(`SELECT count(*)::int AS n, count(DISTINCT reference_id)::int AS refs FROM sessions WHERE tenant_id = $1`, [tenant.tenant_id]);
    expect(counted.rows[0]).toEqual({ n: 1000, refs: 1000 });
  }, 180_000);
});
