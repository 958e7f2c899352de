import type { EntityManager } from 'typeorm';
import type { ServiceVerification } from '../../entities';

/** A live successful session of a user's, as SessionBindingQueries.liveSuccessesOfUser reads it. */
export type LiveSuccessRow = { result: { badges?: unknown; achieved_tier?: unknown } | null; completed_at: Date | null };

/**
 * Reads of the user a session is bound to, run on the caller's connection, inside its transaction
 * (the transition that completed or failed the session, so the user and the session never disagree).
 */
export class SessionBindingQueries {
  /**
   * Locks the user live session `sessionId` is bound to for the rest of `m`'s transaction (FOR UPDATE
   * of the user's row only) and gives their id and current `service_verification`; null when the
   * session is of test mode, unbound, or not there.
   */
  static async lockLiveBoundUser(m: Pick<EntityManager, 'query'>, sessionId: string): Promise<{ userId: string; serviceVerification: ServiceVerification | null } | null> {
    const rows: { user_id: string; service_verification: ServiceVerification | null }[] = await m.query(
      `SELECT u.id AS user_id, u.service_verification FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1 AND s.livemode FOR UPDATE OF u`,
      [sessionId],
    );
    return rows[0] ? { userId: rows[0].user_id, serviceVerification: rows[0].service_verification } : null;
  }

  /** The result and completion time of each live successful session bound to `userId`, but `exceptSessionId`. */
  static async liveSuccessesOfUser(m: Pick<EntityManager, 'query'>, userId: string, exceptSessionId: string): Promise<LiveSuccessRow[]> {
    return m.query(`SELECT result, completed_at FROM sessions WHERE user_id = $1 AND livemode AND status = 'success' AND id <> $2`, [userId, exceptSessionId]);
  }
}
