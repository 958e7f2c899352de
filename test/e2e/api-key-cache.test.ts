import { Client } from 'pg';
import { cli, createTenant, http, startServer, TestServer } from '../helpers/test-server';

/**
 * Servers keep the actor of every key they have authenticated (the `ApiKeyCache` of `src/auth/auth.service.ts`) and ask
 * the database only whether it is still active. These tests change keys behind the server's back,
 * over their own connection, the way an operator with psql would, and check that a revoked or
 * deleted key is refused by the very next request.
 */
describe('API key cache', () => {
  let server: TestServer;
  let db: Client;
  let sessionPath: string;
  let tenantId: string;

  beforeAll(async () => {
    server = await startServer();
    // The embedded database is reachable through the socket in DATA_DIR while the server runs.
    db = new Client(server.env.DATABASE_URL ? { connectionString: server.env.DATABASE_URL } : { host: server.env.DATA_DIR, port: 5432, user: 'postgres', database: 'postgres' });
    await db.connect();
    const tenant = await createTenant(server, 'cache-co');
    tenantId = tenant.tenant_id;
    const created = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T0' } });
    sessionPath = `/v1/verify/sessions/${created.body.id}`;
  });
  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });

  async function newKey(): Promise<{ id: string; key: string }> {
    const out = await cli(server.env, ['key', 'create', '--tenant', tenantId, '--mode', 'test', '--json']);
    return { id: out.json!.key_id as string, key: out.json!.api_key as string };
  }

  it('refuses at once a cached key revoked by a plain SQL UPDATE from another connection', async () => {
    const { id, key } = await newKey();
    for (let i = 0; i < 3; i++) expect((await http(server, 'GET', sessionPath, { key })).status).toBe(200); // cached now
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(401);
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(401);
  });

  it('refuses at once a cached key deleted with its row', async () => {
    const { id, key } = await newKey();
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(200);
    await db.query('DELETE FROM api_keys WHERE id = $1', [id]);
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(401);
  });

  it('answers concurrent requests of several keys each by its own key, and refuses only the revoked one', async () => {
    const [a, b] = [await newKey(), await newKey()];
    const burst = (keys: string[]) => Promise.all(keys.map((key) => http(server, 'GET', sessionPath, { key })));
    expect((await burst([a.key, b.key, a.key, b.key, a.key, b.key])).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [a.id]);
    expect((await burst([a.key, b.key, a.key, b.key])).map((r) => r.status)).toEqual([401, 200, 401, 200]);
  });
});
