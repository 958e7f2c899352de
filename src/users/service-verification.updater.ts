import type { EntityManager } from 'typeorm';
import type { OutboxEventEntity, ServiceVerification } from '../../entities';
import type { OutboxHandler } from '../sessions/session.service';
import { highestTier, isTier, type Tier } from '../sessions/tiers';

/**
 * A bound session's successful result updates its user's `service_verification`
 * (docs/accounts-and-oidc.md, "Binding sessions to users"): the union of badges, the highest tier
 * achieved, the time. It runs in the transition's transaction, so the user and the session never
 * disagree. Only live sessions count: a test-mode result is whatever the tenant asked for
 * (docs/api-behaviour.md, test mode), so it never touches the claim other tenants' live clients read (issue #25, finding 3).
 */
const boundResult = (e: OutboxEventEntity): boolean =>
  typeof e.payload.user_sub === 'string' && !!e.sessionId && (e.type === 'verification.completed' || e.type === 'verification.failed');

export const updateServiceVerification: OutboxHandler = Object.assign(
  async (m: EntityManager, events: OutboxEventEntity[]) => {
    for (const e of events) {
      if (!boundResult(e)) continue;
      if (e.type === 'verification.completed') await addSuccess(m, e);
      // A success reversed (docs/decisions.md D16) or re-decided on review no longer vouches for the user.
      else await recomputeFromSuccesses(m, e.sessionId!);
    }
  },
  { wants: boundResult },
);

async function addSuccess(m: EntityManager, e: OutboxEventEntity): Promise<void> {
  const rows: { user_id: string; service_verification: ServiceVerification | null }[] = await m.query(
    `SELECT u.id AS user_id, u.service_verification FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1 AND s.livemode FOR UPDATE OF u`,
    [e.sessionId],
  );
  if (!rows.length) return;
  const current = rows[0].service_verification ?? { badges: [], tier: null, verified_at: null };
  const achieved = typeof e.payload.tier === 'string' && isTier(e.payload.tier) ? e.payload.tier : null;
  const tiers = [current.tier, achieved].filter(isTier);
  const badges = Array.isArray(e.payload.badges) ? e.payload.badges.filter((b): b is string => typeof b === 'string') : [];
  const next: ServiceVerification = {
    badges: [...new Set([...current.badges, ...badges])].sort(),
    tier: tiers.length ? highestTier(tiers) : null,
    verified_at: typeof e.payload.completed_at === 'string' ? e.payload.completed_at : new Date().toISOString(),
  };
  await m.query(`UPDATE users SET service_verification = $1, updated_at = now() WHERE id = $2`, [JSON.stringify(next), rows[0].user_id]);
}

/** The claim as the user's live successful sessions, other than this failed one, give it: their badges, highest tier and latest time. */
async function recomputeFromSuccesses(m: EntityManager, failedSessionId: string): Promise<void> {
  const owner: { user_id: string }[] = await m.query(`SELECT u.id AS user_id FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1 AND s.livemode FOR UPDATE OF u`, [failedSessionId]);
  if (!owner.length) return;
  const successes: { result: { badges?: unknown; achieved_tier?: unknown } | null; completed_at: Date | null }[] = await m.query(
    `SELECT result, completed_at FROM sessions WHERE user_id = $1 AND livemode AND status = 'success' AND id <> $2`,
    [owner[0].user_id, failedSessionId],
  );
  const badges = successes.flatMap((r) => (Array.isArray(r.result?.badges) ? r.result!.badges.filter((b): b is string => typeof b === 'string') : []));
  const tiers = successes.map((r) => r.result?.achieved_tier).filter((t): t is Tier => typeof t === 'string' && isTier(t));
  const times = successes.map((r) => r.completed_at).filter((t): t is Date => !!t).map((t) => new Date(t).getTime());
  const next: ServiceVerification | null = successes.length
    ? { badges: [...new Set(badges)].sort(), tier: tiers.length ? highestTier(tiers) : null, verified_at: times.length ? new Date(Math.max(...times)).toISOString() : null }
    : null;
  await m.query(`UPDATE users SET service_verification = $1, updated_at = now() WHERE id = $2`, [next ? JSON.stringify(next) : null, owner[0].user_id]);
}
