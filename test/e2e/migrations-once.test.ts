import { cli, ENGINES_OFF, http, startServer, testEnv, type TestServer } from '../helpers/test-server';

/**
 * A deployment runs the migrations once, in a job (`cli migrate`), and starts its gateways and workers
 * with MIGRATIONS=skip (docs/deploy.md): such a process never changes the schema, and refuses to start on
 * a schema behind its build rather than serve it. Always on the embedded database, in a fresh DATA_DIR:
 * a fresh schema is the point, and CI's shared PostgreSQL is already migrated.
 */
describe('MIGRATIONS=skip and cli migrate', () => {
  const env = testEnv({ ...ENGINES_OFF, WORKER_ENABLED: 'false', CHECK_WORKERS: '0' }, { fresh: true });
  delete env.DATABASE_URL;
  delete env.DATABASE_MIGRATION_URL;
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('a gateway with MIGRATIONS=skip refuses an unmigrated schema, naming the command that migrates it', async () => {
    await expect(startServer({ ...env, MIGRATIONS: 'skip' })).rejects.toThrow(/exited with 1 before listening[\s\S]*migrations pending[\s\S]*cli\.js migrate/);
  });

  it('cli migrate applies every migration once; a second run applies none', async () => {
    const first = await cli(env, ['migrate', '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const applied = first.json!.applied as string[];
    expect(applied.length).toBeGreaterThan(10);
    expect(first.json!.schema_at).toBe(applied[applied.length - 1]);
    const again = await cli(env, ['migrate', '--json']);
    expect(again.code).toBe(0);
    expect(again.json).toEqual({ applied: [], schema_at: first.json!.schema_at, job_schema: first.json!.job_schema });
  });

  it('then the gateway starts with MIGRATIONS=skip, ready, and a tenant can be created', async () => {
    server = await startServer({ ...env, MIGRATIONS: 'skip' });
    const ready = await http(server, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready' });
    const tenant = await cli(server.env, ['tenant', 'create', '--name', 'after-migrate', '--json']);
    expect(tenant.code).toBe(0);
  });

  it('a MIGRATIONS value other than run or skip stops the start with the variable named', async () => {
    await expect(startServer({ ...env, MIGRATIONS: 'sometimes' })).rejects.toThrow(/MIGRATIONS/);
  });
});
