import type { DataSource } from 'typeorm';
import { SessionReader, type UserSessionRow } from '../sessions/session-reader';

/** One of the user's verifications, at whichever tenant, named as the tenant shows itself (its flow's display name). */
export type UserVerification = { id: string; tenantName: string; status: string; tier: string; livemode: boolean; createdAt: Date; completedAt: Date | null };

/**
 * The verifications kept in a user's account at every tenant (D20, the account portal): what the
 * portal shows, never a tenant (a tenant's token sees its own slice through GET /v1/me).
 */
export class UserVerificationsService {
  constructor(private readonly db: DataSource) {}

  async list(userId: string, limit = 100): Promise<UserVerification[]> {
    return (await SessionReader.ofUser(this.db, userId, { limit })).map(present);
  }

  /** One verification of the user's, or null when it is not theirs (or does not exist). */
  async get(userId: string, sessionId: string): Promise<UserVerification | null> {
    const [row] = await SessionReader.ofUser(this.db, userId, { sessionId });
    return row ? present(row) : null;
  }
}

const present = (r: UserSessionRow): UserVerification => ({
  id: r.id,
  tenantName: r.tenant_name,
  status: r.status,
  tier: r.tier,
  livemode: r.livemode,
  createdAt: new Date(r.created_at),
  completedAt: r.completed_at ? new Date(r.completed_at) : null,
});
