import { Client } from 'pg';
import { createTenant, http, startServer, Tenant, TestServer } from '../helpers/test-server';

/**
 * A server remembers the flows it has created sessions with (issue 44: a creation no longer reads its
 * flow each time), yet a flow changed anywhere is seen by the very next creation: the statement that
 * writes the session checks that the flow is still the one it was read as (docs/benchmarks.md,
 * "Session creation"). The server is never told of a change: the flows are changed here through
 * the API and, as another instance or an operator with psql would, over a connection of our own.
 */
describe('session creation and changed flows', () => {
  let server: TestServer;
  let db: Client;
  let acme: Tenant;

  beforeAll(async () => {
    server = await startServer();
    // The embedded database is reachable through the socket in DATA_DIR while the server runs.
    db = new Client(server.env.DATABASE_URL ? { connectionString: server.env.DATABASE_URL } : { host: server.env.DATA_DIR, port: 5432, user: 'postgres', database: 'postgres' });
    await db.connect();
    acme = await createTenant(server, 'flow-change-co');
  });
  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });

  const create = (json: Record<string, unknown>) => http(server, 'POST', '/v1/verify/sessions', { key: acme.test_api_key, json });

  it('the next creation sees a flow changed over another connection: its defaults and its highest tier', async () => {
    const flow = await http(server, 'POST', '/v1/developer/flows', { key: acme.test_api_key, json: { name: 'Checkout', max_tier: 'T2', locale: 'en-GB' } });
    expect(flow.status).toBe(201);
    const flowId = flow.body.id as string;
    for (let i = 0; i < 3; i++) expect((await create({ flow_id: flowId, tier: 'T2' })).body).toMatchObject({ flow_id: flowId, locale: 'en-GB', redirect_url: null });

    await db.query(`UPDATE flows SET locale = 'fr-FR', redirect_url = 'https://shop.example/done', max_tier = 'T1' WHERE id = $1`, [flowId]);
    const refused = await create({ flow_id: flowId, tier: 'T2' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_request');
    const lowered = await create({ flow_id: flowId, tier: 'T1' });
    expect(lowered.status).toBe(201);
    expect(lowered.body).toMatchObject({ locale: 'fr-FR', redirect_url: 'https://shop.example/done' });

    // Raised: a tier the remembered flow refused is allowed at once.
    await db.query(`UPDATE flows SET max_tier = 'T3' WHERE id = $1`, [flowId]);
    expect((await create({ flow_id: flowId, tier: 'T3' })).status).toBe(201);
    const stored = await db.query('SELECT locale, redirect_url FROM sessions WHERE flow_id = $1 ORDER BY created_at DESC LIMIT 1', [flowId]);
    expect(stored.rows[0]).toEqual({ locale: 'fr-FR', redirect_url: 'https://shop.example/done' });
  });

  it('a change through the API is seen by the next creation, and the tenant default follows the flow marked default', async () => {
    const first = await create({ flow_id: 'default', tier: 'T1' });
    expect(first.status).toBe(201);
    const defaultId = first.body.flow_id as string;
    const patched = await http(server, 'PATCH', `/v1/developer/flows/${defaultId}`, { key: acme.test_api_key, json: { locale: 'de-DE' } });
    expect(patched.status).toBe(200);
    expect((await create({ flow_id: 'default', tier: 'T1' })).body).toMatchObject({ flow_id: defaultId, locale: 'de-DE' });

    // Another flow made the default behind the server's back: `default` now names it.
    const other = await http(server, 'POST', '/v1/developer/flows', { key: acme.test_api_key, json: { name: 'New default', max_tier: 'T2', locale: 'es-ES' } });
    await db.query('BEGIN');
    await db.query('UPDATE flows SET is_default = false WHERE id = $1', [defaultId]);
    await db.query('UPDATE flows SET is_default = true WHERE id = $1', [other.body.id]);
    await db.query('COMMIT');
    expect((await create({ flow_id: 'default', tier: 'T1' })).body).toMatchObject({ flow_id: other.body.id, locale: 'es-ES' });
  });

  it('a creation still writes its outbox row and its test-mode clock in the same statement', async () => {
    const created = await create({ flow_id: 'default', tier: 'T1' });
    expect(created.status).toBe(201);
    const outbox = await db.query(`SELECT type, payload->>'status' AS status FROM outbox_events WHERE session_id = $1`, [created.body.id]);
    expect(outbox.rows).toEqual([{ type: 'session.status_changed', status: 'created' }]);
    const schema = server.env.JOB_SCHEMA ?? 'pgboss';
    const jobs = await db.query(`SELECT data->>'step' AS step FROM ${schema}.job WHERE name = 'test-mode-advance' AND data->>'sessionId' = $1 ORDER BY start_after`, [created.body.id]);
    expect(jobs.rows.map((r) => r.step)).toEqual(['in_progress', 'processing', 'terminal']);
  });
});
