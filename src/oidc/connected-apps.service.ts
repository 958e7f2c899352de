import { revokeGrants } from './oidc-adapter';
import type { DataSource } from 'typeorm';
import { FIRST_PARTY_CLIENT_ID } from './first-party-sign-in';

/** A tenant's app the user signed in to and granted access: one row per client, however many grants. */
export type ConnectedApp = { clientId: string; tenantName: string; livemode: boolean; scopes: string[]; grantedAt: Date };

/**
 * The apps a user connected with their account (D20, the account portal's "Connected apps"): the
 * provider's live grants of the user to tenants' clients (never the portal's own). Revoking an app
 * ends at once every grant of the user to that client, with the refresh tokens, codes and access
 * tokens issued under them (the /v1 access-token verifier checks the grant on every call).
 */
export class ConnectedAppsService {
  constructor(private readonly db: DataSource) {}

  async list(userId: string): Promise<ConnectedApp[]> {
    const rows: { client_id: string; tenant_name: string; livemode: boolean; payload: unknown; granted_at: number | null }[] = await this.db.query(
      `SELECT g.payload->>'clientId' AS client_id, t.name AS tenant_name, c.livemode, g.payload, (g.payload->>'iat')::bigint AS granted_at
         FROM oidc_payloads g
         JOIN oidc_clients c ON c.client_id = g.payload->>'clientId'
         JOIN tenants t ON t.id = c.tenant_id
        WHERE g.model = 'Grant' AND g.account_id = $1 AND g.payload->>'clientId' <> $2 AND (g.expires_at IS NULL OR g.expires_at > now())
        ORDER BY granted_at, client_id`,
      [userId, FIRST_PARTY_CLIENT_ID],
    );
    const apps = new Map<string, ConnectedApp>();
    for (const r of rows) {
      const app = apps.get(r.client_id) ?? { clientId: r.client_id, tenantName: r.tenant_name, livemode: r.livemode, scopes: [], grantedAt: new Date(Number(r.granted_at ?? 0) * 1000) };
      for (const s of scopesOf(r.payload)) if (!app.scopes.includes(s)) app.scopes.push(s);
      apps.set(r.client_id, app);
    }
    return [...apps.values()];
  }

  /** Ends the user's grants to `clientId` and all issued under them; false when the user had none (or it is the portal itself). */
  async revoke(userId: string, clientId: string): Promise<boolean> {
    if (clientId === FIRST_PARTY_CLIENT_ID) return false;
    return (await revokeGrants(this.db, userId, clientId)) > 0;
  }
}

/** The scopes of a grant's payload: its OpenID scopes and those on any resource (e.g. `account` on /v1). */
function scopesOf(payload: unknown): string[] {
  const p = (typeof payload === 'string' ? JSON.parse(payload) : payload) as { openid?: { scope?: string }; resources?: Record<string, string> } | null;
  const all = [p?.openid?.scope ?? '', ...Object.values(p?.resources ?? {})].join(' ');
  return [...new Set(all.split(' ').filter(Boolean))];
}
