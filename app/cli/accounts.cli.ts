import type { DataSource } from 'typeorm';
import type { Config } from '../../src/config';
import { OidcClients } from '../../src/oidc/oidc-clients';
import { loadUserDataBox } from '../../src/users/user-data-box';

export const ACCOUNT_COMMANDS = ['user create', 'mail list', 'client redirect-uris', 'oidc rotate-keys'];

export const ACCOUNT_USAGE = `  user create --email <e> --password <p> [--json]
                                              an end user whose email counts as proved
  mail list [--to <email>] [--json]           messages the outbox kept (or sent), newest first
  client redirect-uris --tenant <id> --mode test|live [--add <uri>] [--remove <uri>]
              [--add-post-logout <uri>] [--remove-post-logout <uri>] [--json]
                                              a tenant's OIDC redirect URIs (live ones https)
  oidc rotate-keys [--overlap-hours 24] [--json]
                                              a new signing key; the old ones stay published for the
                                              overlap (servers sign with the new one after a restart)`;

export const ACCOUNT_OPTIONS = {
  email: { type: 'string' },
  password: { type: 'string' },
  to: { type: 'string' },
  remove: { type: 'string' },
  'add-post-logout': { type: 'string' },
  'remove-post-logout': { type: 'string' },
  'overlap-hours': { type: 'string' },
} as const;

type Values = Record<string, string | boolean | undefined>;

/** The accounts commands of app/cli.ts (docs/accounts-and-oidc.md). `need` throws the CLI's usage error. */
export async function accountsCommand(command: string, db: DataSource, config: Config, values: Values, need: (name: string) => string): Promise<unknown> {
  // Loaded here, not at the top: every CLI command loads this file (tenant create registers clients with it).
  const [{ UserService }, { MailOutbox }, { rotateSigningKeys }] = await Promise.all([
    import('../../src/users/user.service.js'),
    import('../../src/mail/mail-outbox.js'),
    import('../../src/oidc/oidc-keys.js'),
  ]);
  const box = await loadUserDataBox(db, config);
  const list = (name: string) => (typeof values[name] === 'string' ? [values[name]] : []);
  switch (command) {
    case 'user create': {
      const user = await new UserService(db, box).create({ email: need('email'), password: need('password'), emailVerified: true });
      return { user_id: user.id, email: user.email, email_verified: user.emailVerified, created_at: user.createdAt.toISOString() };
    }
    case 'mail list': {
      const outbox = new MailOutbox(db, box, { smtpUrl: undefined, from: config.accounts.mailFrom });
      const messages = await outbox.list({ to: typeof values.to === 'string' ? values.to : undefined });
      return { messages: messages.map((m) => ({ id: m.id, to: m.to, subject: m.subject, text: m.text, transport: m.transport, created_at: m.createdAt.toISOString() })) };
    }
    case 'client redirect-uris': {
      const mode = need('mode');
      if (mode !== 'test' && mode !== 'live') throw new Error('--mode is test or live');
      const r = await new OidcClients(db, box).updateRedirectUris(need('tenant'), mode, {
        add: list('add'),
        remove: list('remove'),
        addPostLogout: list('add-post-logout'),
        removePostLogout: list('remove-post-logout'),
      });
      return { client_id: r.clientId, redirect_uris: r.redirectUris, post_logout_redirect_uris: r.postLogoutRedirectUris };
    }
    default: {
      const raw = typeof values['overlap-hours'] === 'string' ? values['overlap-hours'] : '24';
      if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 24 * 90) throw new Error('--overlap-hours is a whole number of hours, 1 to 2160');
      const r = await rotateSigningKeys(db, box, Number(raw));
      return { new_kid: r.kid, retiring_kids: r.retiring, overlap_hours: Number(raw) };
    }
  }
}

/** The OIDC clients `tenant create` registers beside the keys; the secrets are shown once. */
export async function registerTenantClients(db: DataSource, config: Config, tenantId: string, jwksUri?: string): Promise<Record<string, string | null>> {
  const clients = await new OidcClients(db, await loadUserDataBox(db, config)).registerTenant(tenantId, { jwksUri });
  return {
    test_client_id: clients.test.clientId,
    test_client_secret: clients.test.clientSecret,
    live_client_id: clients.live.clientId,
    live_client_secret: clients.live.clientSecret,
  };
}
