import type { DataSource } from 'typeorm';
import type { JsonObject } from '../../../entities/dsr-job.entity';
import { DomainError } from '../../errors';
import type { UserService } from '../../users/user.service';
import type { ExportAccountData } from './database-export-sources';

type GrantRow = { id: string; payload: { clientId?: string; iat?: number; openid?: { scope?: string }; resources?: Record<string, string> }; expires_at: Date | null; tenant_name: string | null; livemode: boolean | null };

/** `profile.json` and `oauth_grants.json` from the accounts module (users and the OpenID Provider's grants). */
export class AccountExportData implements ExportAccountData {
  constructor(
    private readonly db: DataSource,
    private readonly users: UserService,
  ) {}

  async profile(userId: string): Promise<JsonObject> {
    const user = await this.users.findById(userId);
    if (!user) throw new DomainError('not_found', 'User not found');
    return {
      id: user.id,
      email: user.email,
      display_name: user.displayName,
      handle: user.handle,
      public_links: user.publicLinks,
      bio: user.bio,
      verified: { legal_name: user.legalName, date_of_birth: user.dateOfBirth, nationality: user.nationality },
      service_verification: user.serviceVerification ?? null,
      state: user.state,
      created_at: user.createdAt.toISOString(),
    };
  }

  async oauthGrants(userId: string): Promise<JsonObject[]> {
    const rows: GrantRow[] = await this.db.query(
      `SELECT g.id, g.payload, g.expires_at, t.name AS tenant_name, c.livemode
         FROM oidc_payloads g
         LEFT JOIN oidc_clients c ON c.client_id = g.payload->>'clientId'
         LEFT JOIN tenants t ON t.id = c.tenant_id
        WHERE g.model = 'Grant' AND g.account_id = $1
        ORDER BY g.id`,
      [userId],
    );
    return rows.map((r) => ({
      grant_id: r.id,
      client_id: r.payload.clientId ?? null,
      app: r.tenant_name,
      livemode: r.livemode,
      scopes: (r.payload.openid?.scope ?? '').split(' ').filter(Boolean),
      resources: Object.keys(r.payload.resources ?? {}),
      granted_at: r.payload.iat ? new Date(r.payload.iat * 1000).toISOString() : null,
      expires_at: r.expires_at ? new Date(r.expires_at).toISOString() : null,
    }));
  }
}
