import type { DataSource, EntityManager } from 'typeorm';
import type { WebhookDispatcher } from '../webhooks/webhook.dispatcher';
import { SessionReader } from '../sessions/session-reader';

/**
 * A tenant (in one mode) that has verified a user, with its own pairwise subject for them; `active`
 * when it holds a verification of the user that stands now or is still running.
 */
export type VerifyingTenant = { tenantId: string; livemode: boolean; userSub: string; active: boolean };

/** One obligation event type, with its data, to some of the tenants. */
export type UserNotice = { tenants: readonly VerifyingTenant[]; type: string; data: Record<string, unknown> };

/**
 * The tenants an erasure or purge must tell (D7 obligations, docs/data-rights.md): every tenant and
 * mode with a session bound to the user, and its pairwise `user_sub`. A tenant never receives a
 * subject of another tenant.
 */
export class UserObligations {
  constructor(
    private readonly db: DataSource,
    private readonly dispatcher: Pick<WebhookDispatcher, 'enqueueObligations'>,
    private readonly subjectFor: (userId: string, tenantId: string) => Promise<string>,
  ) {}

  async tenantsOf(userId: string, opts: { within?: EntityManager } = {}): Promise<VerifyingTenant[]> {
    const out: VerifyingTenant[] = [];
    for (const t of await SessionReader.tenantsOfUser(opts.within ?? this.db, userId)) out.push({ ...t, userSub: await this.subjectFor(userId, t.tenantId) });
    return out;
  }

  /** One obligation event per notice and tenant, committed with the caller's transaction (enqueued together). */
  async emit(m: EntityManager, notices: readonly UserNotice[]): Promise<void> {
    await this.dispatcher.enqueueObligations(
      notices.flatMap(({ tenants, type, data }) => tenants.map((t) => ({ tenantId: t.tenantId, livemode: t.livemode, type, data: { user_sub: t.userSub, ...data } }))),
      m,
    );
  }
}
