import { Client } from 'pg';
import { startServer, testEnv, type TestServer } from '../helpers/test-server';

/**
 * Issue #25 finding 13, the embedded database (src/db/pglite-extended-protocol.ts): every connection
 * to DATA_DIR's socket shares PGlite's one session, so a SET from the CLI's (or psql's) connection
 * held for the server's connections. Now it lasts for its own connection only until another's
 * statement runs; and replica mode no longer skips the audit trigger anyway.
 */
const embedded = !process.env.DATABASE_URL;
if (!embedded) console.log('embedded-session: skipped with DATABASE_URL (it is about the embedded PGlite socket)');

(embedded ? describe : describe.skip)('a SET on the embedded database’s socket', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(testEnv());
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A connection as the CLI and psql make one: DATA_DIR's socket, user postgres. */
  async function connect(): Promise<Client> {
    const c = new Client({ host: server.env.DATA_DIR, port: 5432, user: 'postgres', database: 'postgres' });
    await c.connect();
    return c;
  }

  it('does not reach the other connections: replica mode, search_path, a temporary table, set_config', async () => {
    const cli = await connect();
    const other = await connect();
    try {
      const searchPath = (await other.query(`SHOW search_path`)).rows[0].search_path as string;
      await cli.query(`SET session_replication_role = replica`);
      await cli.query(`SET search_path = pg_catalog`);
      await cli.query(`CREATE TEMP TABLE sessions (id text)`);
      expect((await other.query(`SHOW session_replication_role`)).rows[0].session_replication_role).toBe('origin');
      expect((await other.query(`SHOW search_path`)).rows[0].search_path).toBe(searchPath);
      expect((await other.query(`SELECT count(*)::int AS n FROM pg_class WHERE relpersistence = 't' AND relname = 'sessions'`)).rows[0].n).toBe(0);
      await cli.query(`SELECT set_config('session_replication_role', 'replica', false)`);
      // The audit trigger refuses a change from the other connection (and from this one: replica mode no longer skips it).
      await expect(other.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);
      await cli.query(`SET session_replication_role = replica`);
      await expect(cli.query(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);
    } finally {
      await cli.end();
      await other.end();
    }
  });

  it('leaves the server working after a client’s SET', async () => {
    const cli = await connect();
    try {
      await cli.query(`SET statement_timeout = 1`);
    } finally {
      await cli.end();
    }
    const r = await fetch(`${server.url}/healthz`);
    expect(r.status).toBe(200);
  });
});
