import type { DataSource, EntityManager } from 'typeorm';
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

  async tierDetails(sessionId: string): Promise<{ business: Record<string, string> | null; identitySealed: string | null }> {
    const rows: { business: Record<string, string> | null; identity_sealed: string | null }[] = await this.db.query(
      `SELECT business, identity_sealed FROM hosted_captures WHERE session_id = $1`,
      [sessionId],
    );
    return { business: rows[0]?.business ?? null, identitySealed: rows[0]?.identity_sealed ?? null };
  }

  async markSubmitted(m: Pick<EntityManager, 'query'>, sessionId: string, at: Date): Promise<void> {
    await m.query(`UPDATE hosted_captures SET submitted_at = $2 WHERE session_id = $1 AND submitted_at IS NULL`, [sessionId, at]);
  }
}
