import type { AlsoWithin } from '../db/also-within';
import type { AdapterPayload } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import { DomainError } from '../errors';
import { assertReturnUrl } from '../validation/return-url';
import { randomBase62 } from '../ids';

export type ClientMode = 'test' | 'live';
export type IssuedClient = { clientId: string; clientSecret: string | null; livemode: boolean };
type ClientRow = {
  client_id: string;
  tenant_id: string;
  livemode: boolean;
  secret_sealed: string | null;
  auth_method: string;
  jwks_uri: string | null;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  tenant_name: string;
};

/** The provider's scopes a tenant's app may ask for (docs/accounts-and-oidc.md, "Scopes and claims"). */
export const OIDC_SCOPES = ['openid', 'offline_access', 'email', 'profile', 'verification'] as const;

/**
 * Every tenant is an OIDC client, one per mode like its keys (docs/accounts-and-oidc.md, "Tenants
 * as clients"). The secret is shown once and kept sealed: client_secret_basic/post compare it in clear.
 */
export class OidcClients {
  // Client id -> tenant, which never changes: the hot path (/v1/me) asks on every call.
  private readonly tenants = new Map<string, { tenantId: string; livemode: boolean }>();

  constructor(
    private readonly db: DataSource,
    private readonly box: SecretBox,
  ) {}

  /** Both clients of a new tenant; `jwksUri` makes them private_key_jwt clients without a secret. */
  async registerTenant(tenantId: string, opts: { jwksUri?: string } = {}): Promise<{ test: IssuedClient; live: IssuedClient }> {
    return { test: await this.register(tenantId, false, opts), live: await this.register(tenantId, true, opts) };
  }

  private async register(tenantId: string, livemode: boolean, opts: { jwksUri?: string }): Promise<IssuedClient> {
    const clientId = `oc_${livemode ? 'live' : 'test'}_${randomBase62(24)}`;
    const secret = opts.jwksUri ? null : `ocs_${randomBase62(48)}`;
    if (opts.jwksUri) assertUri(opts.jwksUri, true, 'jwks_uri');
    await this.db.query(
      `INSERT INTO oidc_clients (client_id, tenant_id, livemode, secret_sealed, auth_method, jwks_uri) VALUES ($1, $2, $3, $4, $5, $6)`,
      [clientId, tenantId, livemode, secret ? this.box.seal(secret) : null, opts.jwksUri ? 'private_key_jwt' : 'client_secret_basic', opts.jwksUri ?? null],
    );
    return { clientId, clientSecret: secret, livemode };
  }

  /** Adds or removes redirect URIs (and post-logout URIs); live ones must be https (a loopback http URI is allowed in test mode). */
  async updateRedirectUris(
    tenantId: string,
    mode: ClientMode,
    change: { add?: string[]; remove?: string[]; addPostLogout?: string[]; removePostLogout?: string[] },
    also?: AlsoWithin<{ clientId: string; redirectUris: string[] }>,
  ): Promise<{ clientId: string; redirectUris: string[]; postLogoutRedirectUris: string[] }> {
    const livemode = mode === 'live';
    for (const uri of [...(change.add ?? []), ...(change.addPostLogout ?? [])]) assertUri(uri, livemode, 'redirect URI');
    const rows: ClientRow[] = await this.db.query(`SELECT * FROM oidc_clients WHERE tenant_id = $1 AND livemode = $2`, [tenantId, livemode]);
    if (!rows.length) throw new DomainError('not_found', 'This tenant has no OIDC client in that mode');
    const next = (current: string[], add: string[] = [], remove: string[] = []) => [...new Set([...current, ...add])].filter((u) => !remove.includes(u));
    const redirectUris = next(rows[0].redirect_uris, change.add, change.remove);
    const postLogout = next(rows[0].post_logout_redirect_uris, change.addPostLogout, change.removePostLogout);
    await this.db.transaction(async (m) => {
      await m.query(`UPDATE oidc_clients SET redirect_uris = $1, post_logout_redirect_uris = $2, updated_at = now() WHERE client_id = $3`, [redirectUris, postLogout, rows[0].client_id]);
      await also?.(m, { clientId: rows[0].client_id, redirectUris });
    });
    return { clientId: rows[0].client_id, redirectUris, postLogoutRedirectUris: postLogout };
  }

  /** The tenant's clients (one per mode) with their redirect URIs. */
  async clientsOf(tenantId: string): Promise<{ clientId: string; livemode: boolean; redirectUris: string[] }[]> {
    const rows: { client_id: string; livemode: boolean; redirect_uris: string[] }[] = await this.db.query(
      `SELECT client_id, livemode, redirect_uris FROM oidc_clients WHERE tenant_id = $1 ORDER BY livemode`,
      [tenantId],
    );
    return rows.map((r) => ({ clientId: r.client_id, livemode: r.livemode, redirectUris: r.redirect_uris }));
  }

  async tenantOf(clientId: string): Promise<{ tenantId: string; livemode: boolean } | null> {
    const cached = this.tenants.get(clientId);
    if (cached) return cached;
    const rows: { tenant_id: string; livemode: boolean }[] = await this.db.query(`SELECT tenant_id, livemode FROM oidc_clients WHERE client_id = $1`, [clientId]);
    if (!rows.length) return null;
    const found = { tenantId: rows[0].tenant_id, livemode: rows[0].livemode };
    this.tenants.set(clientId, found);
    return found;
  }

  /** The client an opaque (userinfo) access token was issued to, for metering; null when unknown. */
  async clientOfOpaqueToken(token: string): Promise<string | null> {
    if (token.length > 200 || token.includes('.')) return null;
    const rows: { client_id: string }[] = await this.db.query(`SELECT payload->>'clientId' AS client_id FROM oidc_payloads WHERE model = 'AccessToken' AND id = $1`, [token]);
    return rows[0]?.client_id ?? null;
  }

  async tenantNameOf(clientId: string): Promise<string | null> {
    const rows: { name: string }[] = await this.db.query(`SELECT t.name FROM oidc_clients c JOIN tenants t ON t.id = c.tenant_id WHERE c.client_id = $1`, [clientId]);
    return rows[0]?.name ?? null;
  }

  /** The client as oidc-provider reads it; a client with no redirect URI yet cannot sign anyone in, so it is unknown. */
  async metadataOf(clientId: string): Promise<AdapterPayload | undefined> {
    const rows: ClientRow[] = await this.db.query(
      `SELECT c.*, t.name AS tenant_name FROM oidc_clients c JOIN tenants t ON t.id = c.tenant_id WHERE c.client_id = $1`,
      [clientId],
    );
    const row = rows[0];
    if (!row || !row.redirect_uris.length) return undefined;
    return {
      client_id: row.client_id,
      ...(row.secret_sealed ? { client_secret: this.box.open(row.secret_sealed) } : {}),
      client_name: row.tenant_name,
      token_endpoint_auth_method: row.auth_method,
      ...(row.jwks_uri ? { jwks_uri: row.jwks_uri } : {}),
      redirect_uris: row.redirect_uris,
      post_logout_redirect_uris: row.post_logout_redirect_uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      subject_type: 'pairwise',
      // The sector of a pairwise subject is the tenant (src/users/user.service.ts subjectFor), never a
      // host; this URI only names it, and is never fetched (sectorIdentifierUriValidate is off).
      sector_identifier_uri: `https://${row.tenant_id.toLowerCase().replace(/_/g, '-')}.sector.invalid/`,
      tenant_id: row.tenant_id,
      livemode: row.livemode,
    } as AdapterPayload;
  }
}

/**
 * The one rule of src/validation/return-url.ts (a session's redirect_url follows it too): https, or
 * http on a loopback address for a test-mode client; every other scheme (`javascript:`, `data:`, a
 * private-use one) is refused, as oidc-provider would refuse it at sign-in anyway. No fragment (RFC 6749 §3.1.2).
 */
function assertUri(uri: string, livemode: boolean, what: string): void {
  assertReturnUrl(uri, what, livemode);
  if (new URL(uri).hash) throw new DomainError('invalid_request', `${what} must not have a fragment`);
}
