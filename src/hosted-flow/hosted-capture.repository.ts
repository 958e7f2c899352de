import type { DataSource, EntityManager } from 'typeorm';
import { updatedRows } from '../db/updated-rows';
import { SessionSql } from '../sessions/session.sql';
import type { BusinessDetails } from './business-identifiers';
import type { LivenessChallenge } from '../checks/check-providers';

export type HostedCapture = { sessionId: string; startedAt: Date; challenge: LivenessChallenge | null; submittedAt: Date | null };

type Row = { session_id: string; started_at: Date | string; challenge: LivenessChallenge | null; submitted_at: Date | string | null };

const toCapture = (r: Row): HostedCapture => ({
  sessionId: r.session_id,
  startedAt: new Date(r.started_at),
  challenge: r.challenge,
  submittedAt: r.submitted_at === null ? null : new Date(r.submitted_at),
});

/** The hosted flow's state for a session: when the page started it, the liveness challenge, when it was submitted. */
export class HostedCaptureRepository {
  constructor(private readonly db: DataSource) {}

  async find(sessionId: string, m: Pick<EntityManager, 'query'> = this.db): Promise<HostedCapture | null> {
    const rows: Row[] = await m.query(`SELECT session_id, started_at, challenge, submitted_at FROM hosted_captures WHERE session_id = $1`, [sessionId]);
    return rows[0] ? toCapture(rows[0]) : null;
  }

  async start(m: Pick<EntityManager, 'query'>, sessionId: string, at: Date): Promise<void> {
    await m.query(`INSERT INTO hosted_captures (session_id, started_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING`, [sessionId, at]);
  }

  async setChallenge(sessionId: string, challenge: LivenessChallenge): Promise<void> {
    await this.db.query(`UPDATE hosted_captures SET challenge = $2 WHERE session_id = $1`, [sessionId, JSON.stringify(challenge)]);
  }

  /** The T4 step's identifiers (not personal data) and the T3 step's identity, sealed by the vault. */
  async setBusiness(sessionId: string, business: object): Promise<void> {
    await this.db.query(`UPDATE hosted_captures SET business = $2 WHERE session_id = $1`, [sessionId, JSON.stringify(business)]);
  }

  async setIdentitySealed(sessionId: string, sealed: string): Promise<void> {
    await this.db.query(`UPDATE hosted_captures SET identity_sealed = $2 WHERE session_id = $1`, [sessionId, sealed]);
  }

  async tierDetails(sessionId: string): Promise<{ business: BusinessDetails | null; identitySealed: string | null }> {
    const rows: { business: BusinessDetails | null; identity_sealed: string | null }[] = await this.db.query(
      `SELECT business, identity_sealed FROM hosted_captures WHERE session_id = $1`,
      [sessionId],
    );
    return { business: rows[0]?.business ?? null, identitySealed: rows[0]?.identity_sealed ?? null };
  }

  /** True when this call submitted (a concurrent submit that won leaves it false), with the hash of the keep secret it hands out. */
  async markSubmitted(m: Pick<EntityManager, 'query'>, sessionId: string, at: Date, keepSecretHash: string): Promise<boolean> {
    const out: unknown = await m.query(
      `UPDATE hosted_captures SET submitted_at = $2, keep_secret_hash = $3 WHERE session_id = $1 AND submitted_at IS NULL RETURNING session_id`,
      [sessionId, at, keepSecretHash],
    );
    return updatedRows(out).length > 0;
  }

  /** The keep secret of the browser that submitted, not yet spent. */
  async keepSecretMatches(sessionId: string, keepSecretHash: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM hosted_captures WHERE session_id = $1 AND keep_secret_hash = $2 AND keep_used_at IS NULL`, [sessionId, keepSecretHash]);
    return rows.length > 0;
  }

  /**
   * Spends the keep secret, once (one UPDATE, so two callbacks cannot both win), while the session
   * ended after `completedAfter`. False when spent already, never handed out, or too late.
   */
  async spendKeepSecret(sessionId: string, at: Date, completedAfter: Date): Promise<boolean> {
    const out: unknown = await this.db.query(
      `UPDATE hosted_captures h SET keep_used_at = $2
        WHERE h.session_id = $1 AND h.keep_secret_hash IS NOT NULL AND h.keep_used_at IS NULL AND ${SessionSql.completedAfter('h.session_id', '$3')}
        RETURNING h.session_id`,
      [sessionId, at, completedAfter],
    );
    return updatedRows(out).length > 0;
  }
}
