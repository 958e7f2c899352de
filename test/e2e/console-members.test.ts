import { createConsoleMember, type ConsoleLogin } from '../helpers/console-login';
import { startOidcServer } from '../helpers/oidc-login';
import { createTenant, type Tenant, type TestServer } from '../helpers/test-server';

/**
 * Console members (DECISIONS.md D16, docs/console.md) over HTTP against the built server: invitations
 * by the CLI and the Members page, single use and expiry, roles and their refusals, the second factor,
 * the tenant boundary, and the sign-in's idle timeout (CONSOLE_IDLE_TIMEOUT_SECONDS short here).
 */
const IDLE_SECONDS = 4;

describe('console members', () => {
  let server: TestServer;
  let acme: Tenant;
  let owner: ConsoleLogin;

  beforeAll(async () => {
    server = await startOidcServer({ RATE_LIMIT_ENABLED: 'false', CONSOLE_IDLE_TIMEOUT_SECONDS: String(IDLE_SECONDS), CONSOLE_INVITATION_TTL_SECONDS: '20' });
    acme = await createTenant(server, 'Acme Shop');
    owner = await createConsoleMember(server, acme.tenant_id, 'owner');
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  const get = (login: Pick<ConsoleLogin, 'cookie'>, path: string) => fetch(`${server.url}${path}`, { headers: { cookie: login.cookie }, redirect: 'manual' });

  it('signs an owner in with a TOTP enrolment and shows the Members page with the tenant name', async () => {
    expect(owner.totpSecret).toMatch(/^[A-Z2-7]+=*$/);
    expect(owner.recoveryCodes).toHaveLength(10);
    const r = await get(owner, '/console/members');
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain('Acme Shop');
    expect(html).toContain(owner.email);
    expect(html).toContain('Invite a member');
  });
});
