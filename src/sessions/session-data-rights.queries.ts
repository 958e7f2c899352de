import type { EntityManager } from 'typeorm';

/** A DataSource, or an EntityManager whose transaction the statement joins. */
type Queryable = Pick<EntityManager, 'query'>;

/** A session bound to a user, as the export reads it (the stored result keeps the API's keys: `achieved_tier`). */
export type SessionOfUserForExport = {
  id: string;
  tenant_id: string;
  livemode: boolean;
  tier: string;
  status: string;
  result: { decision?: string; achieved_tier?: string; badges?: string[]; checks?: { name: string; status: string }[] } | null;
  created_at: Date;
  completed_at: Date | null;
};

/**
 * What the data-rights module (erasure, biometric purge, restriction, review, export, DSR mail) reads
 * of the sessions table and writes to it. The sessions module owns the table (test/session-table-owner.test.ts):
 * data-rights code calls these on its own connection (`q`: the DataSource, or the EntityManager of its
 * transaction, so a row lock or a write stays in that transaction), and where a statement of another
 * table needs sessions beside its own rows in one round trip, it takes the SQL fragment from here.
 */
export class SessionDataRightsQueries {
  // -- Reads --

  /** The ids of every session bound to `userId`. */
  static async idsOfUser(q: Queryable, userId: string): Promise<string[]> {
    const rows: { id: string }[] = await q.query(`SELECT id FROM sessions WHERE user_id = $1`, [userId]);
    return rows.map((r) => r.id);
  }

  /** The ids of the sessions bound to `userId` whose status is one of `statuses` (the open ones an erasure withdraws, the paused checks a lift resumes). */
  static async idsOfUserInStatus(q: Queryable, userId: string, statuses: readonly string[]): Promise<string[]> {
    const rows: { id: string }[] = await q.query(`SELECT id FROM sessions WHERE user_id = $1 AND status = ANY($2::text[])`, [userId, statuses]);
    return rows.map((r) => r.id);
  }

  /** Every session bound to one of `userIds`, with its user (a batch of biometric purges). */
  static async ofUsers(q: Queryable, userIds: readonly string[]): Promise<{ id: string; userId: string }[]> {
    const rows: { id: string; user_id: string }[] = await q.query(`SELECT id, user_id FROM sessions WHERE user_id = ANY($1::text[])`, [userIds]);
    return rows.map((r) => ({ id: r.id, userId: r.user_id }));
  }

  /** The user session `sessionId` is bound to; null when it is unbound or there is none. */
  static async userOf(q: Queryable, sessionId: string): Promise<string | null> {
    const rows: { user_id: string | null }[] = await q.query(`SELECT user_id FROM sessions WHERE id = $1`, [sessionId]);
    return rows[0]?.user_id ?? null;
  }

  /**
   * The status of session `sessionId` when it is bound to `userId` (and, for a tenant's token, is tenant
   * `tenantSlice`'s); null otherwise: a user asks about their own verifications only.
   */
  static async statusOfUsersSession(q: Queryable, sessionId: string, userId: string, tenantSlice: string | null): Promise<string | null> {
    const rows: { status: string }[] = await q.query(`SELECT status FROM sessions WHERE id = $1 AND user_id = $2 AND ($3::text IS NULL OR tenant_id = $3)`, [sessionId, userId, tenantSlice]);
    return rows[0]?.status ?? null;
  }

  /** Locks session `sessionId` for the rest of `m`'s transaction when it is tenant `tenantId`'s (null: any tenant's); false when it is not. */
  static async lockOfTenantOrAny(m: Queryable, sessionId: string, tenantId: string | null): Promise<boolean> {
    const rows: unknown[] = await m.query(`SELECT 1 FROM sessions WHERE id = $1 AND ($2::text IS NULL OR tenant_id = $2) FOR UPDATE`, [sessionId, tenantId]);
    return rows.length > 0;
  }

  /** One keyset page of the sessions bound to `userId`, in id order after `afterId` (the export streams them). */
  static async pageOfUserForExport(q: Queryable, userId: string, afterId: string, limit: number): Promise<SessionOfUserForExport[]> {
    return q.query(`SELECT id, tenant_id, livemode, tier, status, result, created_at, completed_at FROM sessions WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT ${Math.trunc(limit)}`, [
      userId,
      afterId,
    ]);
  }

  // -- Writes (in the caller's transaction) --

  /**
   * The biometric purge of sessions `sessionIds`: the `liveness` badge goes (and `photo` unless a face match
   * passed), the scores of `biometricChecks` and all signals go, and evidence ids keep only unpurged artifacts.
   */
  static async stripBiometrics(m: Queryable, sessionIds: readonly string[], biometricChecks: readonly string[]): Promise<void> {
    await m.query(
      `UPDATE sessions s SET result = s.result
          || jsonb_build_object('badges', (SELECT COALESCE(jsonb_agg(b), '[]'::jsonb) FROM jsonb_array_elements_text(s.result->'badges') b
                                           WHERE b <> 'liveness' AND (b <> 'photo' OR EXISTS (SELECT 1 FROM jsonb_array_elements(s.result->'checks') c WHERE c->>'name' = 'face_match' AND c->>'status' = 'pass'))))
          || jsonb_build_object('checks', (SELECT COALESCE(jsonb_agg(CASE WHEN c->>'name' = ANY($2::text[]) THEN c - 'score' ELSE c END), '[]'::jsonb) FROM jsonb_array_elements(s.result->'checks') c))
          || '{"signals": []}'::jsonb
          || jsonb_build_object('evidence_artifact_ids', (SELECT COALESCE(jsonb_agg(a.id), '[]'::jsonb) FROM artifacts a
                                           WHERE a.id IN (SELECT jsonb_array_elements_text(COALESCE(s.result->'evidence_artifact_ids', '[]'::jsonb))) AND a.purged_at IS NULL))
        WHERE s.id = ANY($1::text[]) AND s.result IS NOT NULL`,
      [sessionIds, biometricChecks],
    );
  }

  /**
   * The hard purge of sessions `sessionIds`: the verification record stays (its decision, tiers, badges and each
   * check's outcome); the tenant's metadata, reference and redirect and everything that describes the person go.
   */
  static async scrubPersonalData(m: Queryable, sessionIds: readonly string[]): Promise<void> {
    await m.query(
      `UPDATE sessions SET metadata = '{}'::jsonb, reference_id = NULL, redirect_url = NULL,
              result = CASE WHEN result IS NULL THEN NULL ELSE
                jsonb_build_object('decision', result->'decision', 'achieved_tier', result->'achieved_tier', 'confidence', result->'confidence',
                  'badges', COALESCE(result->'badges', '[]'::jsonb), 'evidence_urls', '[]'::jsonb, 'signals', '[]'::jsonb,
                  'checks', COALESCE((SELECT jsonb_agg(jsonb_build_object('name', c->'name', 'status', c->'status')) FROM jsonb_array_elements(result->'checks') c), '[]'::jsonb))
              END
        WHERE id = ANY($1::text[])`,
      [sessionIds],
    );
  }
}
