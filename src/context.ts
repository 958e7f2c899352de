import type { Actor, HostedPageActor } from './auth/actor';
import type { AuthService } from './auth/auth.service';

/** What every GraphQL resolver and REST route sees: who is calling. */
export type RequestContext = {
  requestId: string;
  actor: Actor | null;
  /** The request carried the operator credential (see src/auth/operator.ts); set by the HTTP layer. */
  operator?: boolean;
};

/**
 * Which credentials a surface takes: the API's (tenant keys, client secrets, user tokens) everywhere
 * but /v1/hosted, which takes the hosted page's credential only.
 */
export type CredentialKind = 'api' | 'page';

/** Resolves a page credential (implemented by src/hosted-flow/hosted-flow.service.ts); `unauthorized` for a missing, wrong, expired or ended one. */
export type PageActors = { pageActor(authorization: string | undefined): Promise<HostedPageActor> };

/**
 * The one context factory for HTTP GraphQL, the REST adapter and WebSocket subscriptions. Session
 * reads are batched in one place, below the service (src/sessions/session-reader.ts), so the context
 * carries no per-request loaders.
 */
export class ContextFactory {
  constructor(
    private readonly auth: AuthService,
    private readonly pages: PageActors,
  ) {}

  /** Throws `unauthorized` for a wrong credential; no API credential yields an anonymous context, no page credential `unauthorized`. */
  async create(input: { authorization: string | undefined; requestId: string; credential?: CredentialKind }): Promise<RequestContext> {
    const actor = input.credential === 'page' ? await this.pages.pageActor(input.authorization) : await this.auth.authenticate(input.authorization);
    return { requestId: input.requestId, actor };
  }
}
