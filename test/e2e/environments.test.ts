import { loggedLine, startServer, testEnv, type TestServer } from '../helpers/test-server';

/**
 * Staging beside production (D19, issue 41 item 5): with an IP address as PUBLIC_BASE_URL the default
 * staging URL (the host prefixed `staging.`) cannot be made, and staging silently was production.
 */
describe('a staging URL that would be the production URL', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('stops a production instance at start with a message naming STAGING_BASE_URL, exit code 1', async () => {
    const failed = await startServer(testEnv({ ENVIRONMENT: 'production', PUBLIC_BASE_URL: 'http://10.20.30.40:8080' })).then(
      (s) => (servers.push(s), null),
      (err: Error) => err.message,
    );
    expect(failed).toMatch(/server exited with 1 before listening/);
    expect(failed).toContain("STAGING_BASE_URL: the staging URL is the production URL: a PUBLIC_BASE_URL whose host is an IP address cannot take the 'staging.' prefix (http://10.20.30.40:8080)");
  });

  it('starts a production instance on an IP address once STAGING_BASE_URL names another server, listing both', async () => {
    const s = await startServer(testEnv({ ENVIRONMENT: 'production', PUBLIC_BASE_URL: 'http://10.20.30.40:8080', STAGING_BASE_URL: 'http://10.20.30.41:8080' }));
    servers.push(s);
    const doc = await (await fetch(`${s.url}/openapi.yaml`)).text();
    expect(doc).toContain('  - url: http://10.20.30.40:8080\n    description: Production');
    expect(doc).toContain('  - url: http://10.20.30.41:8080\n    description: Staging');
    expect(await s.settledLogs()).not.toContain('the staging URL is the production URL');
  });

  it('warns at the start of a development instance, and starts', async () => {
    const s = await startServer(testEnv({ PUBLIC_BASE_URL: 'http://10.20.30.40:8080' }));
    servers.push(s);
    const warning = JSON.parse(await loggedLine(s, /^\{.*"msg":"the staging URL is the production URL/)) as { level?: unknown; msg?: string; environment?: string };
    expect(warning).toMatchObject({ environment: 'development', msg: expect.stringContaining('set STAGING_BASE_URL') });
  }, 200_000);
});
