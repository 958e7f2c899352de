import DataLoader from 'dataloader';
import type { SessionEntity } from '../entities';
import type { Actor } from './auth/actor';
import type { AuthService } from './auth/auth.service';
import type { SessionService } from './sessions/session.service';

export type Loaders = {
  /** Sessions visible to this request's actor; `null` where another tenant's or missing. */
  session: DataLoader<string, SessionEntity | null>;
};

/** What every GraphQL resolver and REST route sees: who is calling, and per-request loaders. */
export type RequestContext = {
  requestId: string;
  actor: Actor | null;
  loaders: Loaders;
  /** The request carried the operator credential (see src/auth/operator.ts); set by the HTTP layer. */
  operator?: boolean;
};

/**
 * The one context factory for HTTP GraphQL, the REST adapter and WebSocket subscriptions.
 * Loaders are built per request: a shared loader would leak one tenant's cache to another.
 */
export class ContextFactory {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionService,
  ) {}

  /** Throws `unauthorized` for a wrong credential; no credential yields an anonymous context. */
  async create(input: { authorization: string | undefined; requestId: string }): Promise<RequestContext> {
    const actor = await this.auth.authenticate(input.authorization);
    return { requestId: input.requestId, actor, loaders: this.loadersFor(actor) };
  }

  private loadersFor(actor: Actor | null): Loaders {
    return {
      session: new DataLoader<string, SessionEntity | null>(async (ids) => (actor ? this.sessions.getMany(actor, ids) : ids.map(() => null))),
    };
  }
}
