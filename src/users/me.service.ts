import { CoalescingReader } from '../db/coalescing-reader';
import type { PreparedSql } from '../db/prepared-sql';
import type { EndUserActor } from '../auth/actor';
import { tenantSliceOf } from '../auth/user-token.policy';
import { DomainError } from '../errors';
import { SessionSql } from '../sessions/session.sql';
import { disclosureTo, onlyIf } from './account-disclosure';
import type { UserService } from './user.service';

/** The whole account as read (cached per user and slice, frozen); MeView is what a token is shown of it. */
type AccountView = {
  id: string;
  email: string;
  email_verified: boolean;
  profile: { display_name: string | null; handle: string | null; public_links: string[]; bio: string | null };
  verified: { legal_name: string | null; date_of_birth: string | null; nationality: string | null };
  service_verification: { badges: string[]; tier: string | null; verified_at: string | null };
  state: string;
  created_at: string;
  sessions: { id: string; status: string; tier: string; livemode: boolean; created_at: string; completed_at: string | null }[];
};

/**
 * `GET /v1/me`: the token's own subject and what its client may be shown (src/users/account-disclosure.ts):
 * `id`, `verified` and `created_at` for the account portal only, the rest by scope.
 */
export type MeView = { sub: string; state: string; sessions: AccountView['sessions'] } & Partial<Omit<AccountView, 'state' | 'sessions'>>;

// Each wanted (user, slice) with the user's row and their latest 100 sessions of that slice, in one statement.
const ME_VIEWS_SQL = `SELECT k.user_id AS view_user, k.tenant_id AS view_tenant, u.*,
                ${SessionSql.latestOfUserJson('u.id', 'k.tenant_id', 100)} AS sessions
           FROM unnest($1::text[], $2::text[]) AS k(user_id, tenant_id) JOIN users u ON u.id = k.user_id`;

/** What `GET /v1/me` and GraphQL's `viewer` show a signed-in user's token about the account (docs/accounts-and-oidc.md; docs/decisions.md D14, D20). */
export class MeService {
  /**
   * Concurrent views share one statement, each answered by a query that started after it asked
   * (CoalescingReader), and one view per user is built (decrypted) per statement, frozen, for all
   * of that user's waiting requests.
   */
  private readonly views: CoalescingReader<ViewKey, AccountView>;

  constructor(
    sql: PreparedSql,
    private readonly users: UserService,
  ) {
    this.views = new CoalescingReader(async (wanted) => {
      // '' for the account portal: the whole account; a tenant id: that tenant's slice of the sessions (D20).
      const rows = await sql.rows<MeRow>(
        'me-views',
        ME_VIEWS_SQL,
        [wanted.map((k) => k.userId), wanted.map((k) => k.tenantId ?? '')],
      );
      return new Map(rows.map((r) => [viewKey({ userId: r.view_user as string, tenantId: (r.view_tenant as string) || null }), deepFreeze(this.toView(r))]));
    }, viewKey);
  }

  /**
   * The user and their latest 100 sessions (this runs on every GET /v1/me): at the token's tenant
   * only, or at every tenant for the account portal (tenantSliceOf). Frozen: shared by concurrent requests.
   */
  async view(actor: EndUserActor): Promise<MeView> {
    const view = await this.views.read({ userId: actor.userId, tenantId: tenantSliceOf(actor) });
    if (!view) throw new DomainError('unauthorized', 'Invalid access token: unknown user');
    const shown = disclosureTo(actor);
    return {
      sub: actor.sub,
      ...onlyIf(shown.wholeAccount, { id: view.id }),
      ...onlyIf(shown.email, { email: view.email, email_verified: view.email_verified }),
      ...onlyIf(shown.profile, { profile: view.profile }),
      ...onlyIf(shown.wholeAccount, { verified: view.verified }),
      ...onlyIf(shown.verification, { service_verification: view.service_verification }),
      state: view.state,
      ...onlyIf(shown.wholeAccount, { created_at: view.created_at }),
      sessions: view.sessions,
    };
  }

  private toView(row: MeRow): AccountView {
    const user = this.users.fromRow(row);
    const sessions = typeof row.sessions === 'string' ? (JSON.parse(row.sessions) as SessionRow[]) : row.sessions;
    return {
      id: user.id,
      email: user.email,
      email_verified: user.emailVerified,
      profile: { display_name: user.displayName, handle: user.handle, public_links: user.publicLinks, bio: user.bio },
      verified: { legal_name: user.legalName, date_of_birth: user.dateOfBirth, nationality: user.nationality },
      service_verification: user.serviceVerification ?? { badges: [], tier: null, verified_at: null },
      state: user.state,
      created_at: user.createdAt.toISOString(),
      sessions: sessions.map((s) => ({
        id: s.id,
        status: s.status,
        tier: s.tier,
        livemode: s.livemode,
        created_at: new Date(s.created_at).toISOString(),
        completed_at: s.completed_at ? new Date(s.completed_at).toISOString() : null,
      })),
    };
  }
}

type ViewKey = { userId: string; tenantId: string | null };
const viewKey = (k: ViewKey): string => `${k.userId}\u0000${k.tenantId ?? ''}`;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

type MeRow = Record<string, unknown> & { sessions: SessionRow[] | string };
type SessionRow = { id: string; status: string; tier: string; livemode: boolean; created_at: string; completed_at: string | null };
