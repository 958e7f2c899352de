import type { EntityManager } from 'typeorm';
import type { OutboxEventEntity, ServiceVerification } from '../../entities';
import type { OutboxHandler } from '../sessions/session.service';
import { SessionBindingQueries } from '../sessions/session-binding.queries';
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
  const user = await SessionBindingQueries.lockLiveBoundUser(m, e.sessionId!);
  if (!user) return;
  const current = user.serviceVerification ?? { badges: [], tier: null, verified_at: null };
  const achieved = typeof e.payload.tier === 'string' && isTier(e.payload.tier) ? e.payload.tier : null;
  const tiers = [current.tier, achieved].filter(isTier);
  const badges = Array.isArray(e.payload.badges) ? e.payload.badges.filter((b): b is string => typeof b === 'string') : [];
  const next: ServiceVerification = {
    badges: [...new Set([...current.badges, ...badges])].sort(),
    tier: tiers.length ? highestTier(tiers) : null,
    verified_at: typeof e.payload.completed_at === 'string' ? e.payload.completed_at : new Date().toISOString(),
  };
  await m.query(`UPDATE users SET service_verification = $1, updated_at = now() WHERE id = $2`, [JSON.stringify(next), user.userId]);
}

/** The claim as the user's live successful sessions, other than this failed one, give it: their badges, highest tier and latest time. */
async function recomputeFromSuccesses(m: EntityManager, failedSessionId: string): Promise<void> {
  const owner = await SessionBindingQueries.lockLiveBoundUser(m, failedSessionId);
  if (!owner) return;
  const successes = await SessionBindingQueries.liveSuccessesOfUser(m, owner.userId, failedSessionId);
  const badges = successes.flatMap((r) => (Array.isArray(r.result?.badges) ? r.result!.badges.filter((b): b is string => typeof b === 'string') : []));
  const tiers = successes.map((r) => r.result?.achieved_tier).filter((t): t is Tier => typeof t === 'string' && isTier(t));
  const times = successes.map((r) => r.completed_at).filter((t): t is Date => !!t).map((t) => new Date(t).getTime());
  const next: ServiceVerification | null = successes.length
    ? { badges: [...new Set(badges)].sort(), tier: tiers.length ? highestTier(tiers) : null, verified_at: times.length ? new Date(Math.max(...times)).toISOString() : null }
    : null;
  await m.query(`UPDATE users SET service_verification = $1, updated_at = now() WHERE id = $2`, [next ? JSON.stringify(next) : null, owner.userId]);
}
