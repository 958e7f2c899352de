import type { DataSource } from 'typeorm';

/** One of the user's verifications, at whichever tenant, named as the tenant shows itself (its flow's display name). */
export type UserVerification = { id: string; tenantName: string; status: string; tier: string; livemode: boolean; createdAt: Date; completedAt: Date | null };

/**
 * The verifications kept in a user's account at every tenant (D20, the account portal): what the
 * portal shows, never a tenant (a tenant's token sees its own slice through GET /v1/me).
 */
export class UserVerificationsService {
  constructor(private readonly db: DataSource) {}

  async list(userId: string, limit = 100): Promise<UserVerification[]> {
    return this.select('s.user_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT $2', [userId, limit]);
  }

  /** One verification of the user's, or null when it is not theirs (or does not exist). */
  async get(userId: string, sessionId: string): Promise<UserVerification | null> {
    return (await this.select('s.user_id = $1 AND s.id = $2', [userId, sessionId]))[0] ?? null;
  }

  private async select(where: string, params: unknown[]): Promise<UserVerification[]> {
    const rows: { id: string; tenant_name: string; status: string; tier: string; livemode: boolean; created_at: Date; completed_at: Date | null }[] = await this.db.query(
      `SELECT s.id, coalesce(nullif(f.display_name, ''), t.name) AS tenant_name, s.status, s.tier, s.livemode, s.created_at, s.completed_at
         FROM sessions s JOIN flows f ON f.id = s.flow_id JOIN tenants t ON t.id = s.tenant_id
        WHERE ${where}`,
      params,
    );
    return rows.map((r) => ({
      id: r.id,
      tenantName: r.tenant_name,
      status: r.status,
      tier: r.tier,
      livemode: r.livemode,
      createdAt: new Date(r.created_at),
      completedAt: r.completed_at ? new Date(r.completed_at) : null,
    }));
  }
}
