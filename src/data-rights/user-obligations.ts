import type { DataSource, EntityManager } from 'typeorm';
import type { WebhookDispatcher } from '../webhooks/webhook.dispatcher';

/** A tenant (in one mode) that has verified a user, with its own pairwise subject for them. */
export type VerifyingTenant = { tenantId: string; livemode: boolean; userSub: string };

/**
 * The tenants an erasure or purge must tell (D7 obligations, docs/data-rights.md): every tenant and
 * mode with a session bound to the user, and its pairwise `user_sub`. A tenant never receives a
 * subject of another tenant.
 */
export class UserObligations {
  constructor(
    private readonly db: DataSource,
    private readonly dispatcher: Pick<WebhookDispatcher, 'enqueueObligation'>,
    private readonly subjectFor: (userId: string, tenantId: string) => Promise<string>,
  ) {}

  /** `activeOnly`: only tenants with a verification of the user that holds now or is still running. */
  async tenantsOf(userId: string, opts: { activeOnly?: boolean; within?: EntityManager } = {}): Promise<VerifyingTenant[]> {
    const q = opts.within ?? this.db;
    const rows: { tenant_id: string; livemode: boolean }[] = await q.query(
      `SELECT DISTINCT tenant_id, livemode FROM sessions WHERE user_id = $1 ${opts.activeOnly ? `AND status IN ('success', 'created', 'in_progress', 'processing', 'manual_review')` : ''} ORDER BY tenant_id, livemode`,
      [userId],
    );
    const out: VerifyingTenant[] = [];
    for (const r of rows) out.push({ tenantId: r.tenant_id, livemode: r.livemode, userSub: await this.subjectFor(userId, r.tenant_id) });
    return out;
  }

  /** One obligation event per tenant and mode, committed with the caller's transaction. */
  async emit(m: EntityManager, tenants: readonly VerifyingTenant[], type: string, data: Record<string, unknown>): Promise<void> {
    for (const t of tenants) await this.dispatcher.enqueueObligation(t.tenantId, t.livemode, type, { user_sub: t.userSub, ...data }, m);
  }
}
