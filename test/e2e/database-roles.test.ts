import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { cli, createTenant, http, startServer, testEnv, type TestServer } from '../helpers/test-server';

/**
 * Issue #25 finding 13 (docs/operations.md, "Database roles"): the server migrates as the owner
 * (DATABASE_MIGRATION_URL) and serves as a login role in `idv_app`, which owns nothing. As that role
 * the audit trigger cannot be switched off and the audit log cannot be changed, whatever the trigger.
 * A real PostgreSQL only: the embedded PGlite has one superuser session (its CLI side: embedded-session.test.ts).
 */
const ownerUrl = process.env.DATABASE_URL;
if (!ownerUrl) console.log('database-roles: skipped without DATABASE_URL (roles need a real PostgreSQL; the embedded one is one superuser session)');

(ownerUrl ? describe : describe.skip)('the app connects as a role that owns nothing', () => {
  let server: TestServer;
  let appUrl: string;
  const login = `idv_app_test_${randomBytes(4).toString('hex')}`;

  const asOwner = async <T>(fn: (c: Client) => Promise<T>): Promise<T> => {
    const c = new Client({ connectionString: ownerUrl });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    // What the operator does once (docs/operations.md): the group role (the migration makes it too) and a login in it.
    await asOwner(async (c) => {
      await c.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'idv_app') THEN CREATE ROLE idv_app NOLOGIN; END IF;
                     EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
      await c.query(`CREATE ROLE ${login} LOGIN IN ROLE idv_app`);
    });
    const u = new URL(ownerUrl!);
    u.username = login;
    u.password = '';
    appUrl = u.href;
    server = await startServer(testEnv({ DATABASE_URL: appUrl, DATABASE_MIGRATION_URL: ownerUrl, RATE_LIMIT_ENABLED: 'false' }));
  });
  afterAll(async () => {
    await server?.stop();
    await asOwner(async (c) => {
      await c.query(`REASSIGN OWNED BY ${login} TO CURRENT_USER`);
      await c.query(`DROP OWNED BY ${login}`);
      await c.query(`DROP ROLE IF EXISTS ${login}`);
    });
  });

  it('serves as that role: tenants, sessions and their jobs work', async () => {
    const tenant = await createTenant(server, 'roles');
    const s = await http(server, 'POST', '/v1/verify/sessions', { key: tenant.test_api_key, json: { flow_id: 'default', tier: 'T1' } });
    expect(s.status).toBe(201);
    const who = await cli(server.env, ['tenant', 'list', '--json']);
    expect(who.code).toBe(0);
  });

  it('as that role, SET session_replication_role = replica is refused, and UPDATE, DELETE, TRUNCATE and disabling the trigger on audit_log too', async () => {
    const c = new Client({ connectionString: appUrl });
    await c.connect();
    try {
      expect((await c.query(`SELECT current_user AS u`)).rows[0].u).toBe(login);
      const refused = async (sql: string) => {
        const err = await c.query(sql).then(
          () => null,
          (e: { code?: string }) => e,
        );
        return err?.code;
      };
      expect(await refused(`SET session_replication_role = replica`)).toBe('42501');
      expect(await refused(`UPDATE audit_log SET action = action`)).toBe('42501');
      expect(await refused(`DELETE FROM audit_log`)).toBe('42501');
      expect(await refused(`TRUNCATE audit_log`)).toBe('42501');
      expect(await refused(`ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete`)).toBe('42501');
      expect(await refused(`DROP TRIGGER audit_log_no_update_delete ON audit_log`)).toBe('42501');
      // It still appends and reads.
      expect((await c.query(`SELECT count(*)::int AS n FROM audit_log`)).rows[0].n).toBeGreaterThanOrEqual(0);
    } finally {
      await c.end();
    }
  });
});
