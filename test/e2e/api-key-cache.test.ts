import { Client } from 'pg';
import { cli, createTenant, eventually, http, startServer, TestServer } from '../helpers/test-server';

/**
 * On a real PostgreSQL, servers cache authenticated keys and PostgreSQL evicts them at commit
 * (src/auth/api-key-cache.ts). These tests change keys behind the server's back, the way an
 * operator with psql would, and check that a revoked key is never served from the cache.
 * Embedded PGlite has no cache (every request reads its key), so they need DATABASE_URL.
 */
const withRealPostgres = process.env.DATABASE_URL ? describe : describe.skip;

withRealPostgres('API key cache on a real PostgreSQL', () => {
  let server: TestServer;
  let db: Client;
  let sessionPath: string;
  let tenantId: string;

  beforeAll(async () => {
    server = await startServer();
    db = new Client({ connectionString: process.env.DATABASE_URL });
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
  const listenerName = () => `ivs-api-key-cache:${server.proc.pid}`;

  it('refuses at once a cached key revoked by a plain SQL UPDATE from another connection', async () => {
    const { id, key } = await newKey();
    for (let i = 0; i < 3; i++) expect((await http(server, 'GET', sessionPath, { key })).status).toBe(200); // cached now
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(401);
  });

  it('refuses at once a cached key deleted with its row', async () => {
    const { id, key } = await newKey();
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(200);
    await db.query('DELETE FROM api_keys WHERE id = $1', [id]);
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(401);
  });

  it('stops caching while its notification connection is down, and caches again once it is back', async () => {
    const { id, key } = await newKey();
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(200);
    const killed = await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [listenerName()]);
    expect(killed.rowCount).toBe(1);
    // While deaf, a revocation cannot be heard, so it must be read: the request after it is refused.
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
    expect((await http(server, 'GET', sessionPath, { key })).status).toBe(401);

    // Back: the server listens again under its name, and a fresh key is cached and evicted as before.
    await eventually(async () => ((await db.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [listenerName()])).rowCount === 1 ? true : undefined));
    const again = await newKey();
    expect((await http(server, 'GET', sessionPath, { key: again.key })).status).toBe(200);
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [again.id]);
    expect((await http(server, 'GET', sessionPath, { key: again.key })).status).toBe(401);
  });
});
