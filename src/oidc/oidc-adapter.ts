import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { OidcClients } from './oidc-clients';
import { hasUnstorableCharacters } from '../validation/postgres-text';

/** An id a client sent that no row can hold (a NUL, an unpaired surrogate; issue #40 finding 10): found nowhere, never a database error. */
const unstorable = (id: unknown): boolean => typeof id !== 'string' || hasUnstorableCharacters(id);

/**
 * oidc-provider's storage on the project's database (docs/accounts-and-oidc.md, "Storage"): one
 * row per model instance in `oidc_payloads`, so grants, refresh tokens and sessions survive a
 * restart and are shared by every instance. Plain parameterised statements only (no LISTEN, SET or
 * named statements), so it runs on embedded PGlite too. Clients are not stored here: they are the
 * tenants' clients of `oidc_clients`, answered by OidcClients.
 */
export function postgresAdapter(db: DataSource, clients: OidcClients): new (model: string) => Adapter {
  return class PostgresOidcAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      await db.query(
        `INSERT INTO oidc_payloads (model, id, payload, grant_id, account_id, uid, user_code, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, account_id = EXCLUDED.account_id,
           uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
        [this.model, id, JSON.stringify(payload), payload.grantId ?? null, payload.accountId ?? null, payload.uid ?? null, payload.userCode ?? null, expiresAt],
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (unstorable(id)) return undefined;
      if (this.model === 'Client') return clients.metadataOf(id);
      return this.one(`SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > now())`, [this.model, id]);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (unstorable(userCode)) return undefined;
      return this.one(`SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND user_code = $2 AND (expires_at IS NULL OR expires_at > now())`, [this.model, userCode]);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      if (unstorable(uid)) return undefined;
      return this.one(`SELECT payload, consumed_at FROM oidc_payloads WHERE model = $1 AND uid = $2 AND (expires_at IS NULL OR expires_at > now())`, [this.model, uid]);
    }

    async consume(id: string): Promise<void> {
      if (unstorable(id)) return;
      await db.query(`UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id = $2`, [this.model, id]);
    }

    async destroy(id: string): Promise<void> {
      if (unstorable(id)) return;
      await db.query(`DELETE FROM oidc_payloads WHERE model = $1 AND id = $2`, [this.model, id]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      if (unstorable(grantId)) return;
      await db.query(`DELETE FROM oidc_payloads WHERE grant_id = $1`, [grantId]);
    }

    private async one(sql: string, params: unknown[]): Promise<AdapterPayload | undefined> {
      const rows: { payload: AdapterPayload; consumed_at: Date | null }[] = await db.query(sql, params);
      if (!rows.length) return undefined;
      const payload = typeof rows[0].payload === 'string' ? (JSON.parse(rows[0].payload) as AdapterPayload) : rows[0].payload;
      return rows[0].consumed_at ? { ...payload, consumed: Math.floor(new Date(rows[0].consumed_at).getTime() / 1000) } : payload;
    }
  };
}

/**
 * Ends every grant of a user, with every token, code and session issued under them (erasure,
 * restriction): what the provider's own revocation does, for all of the user's grants at once.
 */
export async function revokeAllGrantsOf(db: DataSource, userId: string): Promise<number> {
  const revoked = await revokeGrants(db, userId);
  // Sign-in sessions of the user at the provider too, so no new grant follows without a new sign-in.
  await db.query(`DELETE FROM oidc_payloads WHERE model = 'Session' AND account_id = $1`, [userId]);
  return revoked;
}

/** Ends the user's grants (only those to `clientId`, when given) with every token and code issued under them; how many. */
export async function revokeGrants(db: Pick<DataSource, 'query'>, userId: string, clientId?: string): Promise<number> {
  const grants: { id: string }[] = clientId
    ? await db.query(`SELECT id FROM oidc_payloads WHERE model = 'Grant' AND account_id = $1 AND payload->>'clientId' = $2`, [userId, clientId])
    : await db.query(`SELECT id FROM oidc_payloads WHERE model = 'Grant' AND account_id = $1`, [userId]);
  const ids = grants.map((g) => g.id);
  if (ids.length) await db.query(`DELETE FROM oidc_payloads WHERE grant_id = ANY($1) OR (model = 'Grant' AND id = ANY($1))`, [ids]);
  return ids.length;
}
