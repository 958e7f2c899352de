import type { DataSource } from 'typeorm';
import type { EndUserActor } from '../auth/actor';
import { DomainError } from '../errors';
import type { UserService } from './user.service';

export type MeView = {
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

/** What `GET /v1/me` and GraphQL's `viewer` show a signed-in user about themselves (docs/accounts-and-oidc.md). */
export class MeService {
  constructor(
    private readonly db: DataSource,
    private readonly users: UserService,
  ) {}

  async view(actor: EndUserActor): Promise<MeView> {
    const user = await this.users.findById(actor.userId);
    if (!user) throw new DomainError('unauthorized', 'Invalid access token: unknown user');
    const sessions: { id: string; status: string; tier: string; livemode: boolean; created_at: Date; completed_at: Date | null }[] = await this.db.query(
      `SELECT id, status, tier, livemode, created_at, completed_at FROM sessions WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT 100`,
      [user.id],
    );
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
