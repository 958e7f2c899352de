import type { Actor } from './auth/actor';
import type { AuthService } from './auth/auth.service';

/** What every GraphQL resolver and REST route sees: who is calling. */
export type RequestContext = {
  requestId: string;
  actor: Actor | null;
  /** The request carried the operator credential (see src/auth/operator.ts); set by the HTTP layer. */
  operator?: boolean;
};

/**
 * The one context factory for HTTP GraphQL, the REST adapter and WebSocket subscriptions. Session
 * reads are batched in one place, below the service (src/sessions/session-rows.ts), so the context
 * carries no per-request loaders.
 */
export class ContextFactory {
  constructor(private readonly auth: AuthService) {}

  /** Throws `unauthorized` for a wrong credential; no credential yields an anonymous context. */
  async create(input: { authorization: string | undefined; requestId: string }): Promise<RequestContext> {
    return { requestId: input.requestId, actor: await this.auth.authenticate(input.authorization) };
  }
}
