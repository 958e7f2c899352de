import type { Actor } from '../auth/actor';
import type { SignedLinks } from '../links/signed-links';

/** Statuses in which the end user can still do something on the page, so the link is worth sending again (D21). */
const OPEN_STATUSES: readonly string[] = ['created', 'in_progress'];

/**
 * Who gets a session's hosted URL, and when (docs/decisions.md D21). The URL carries a token minted by
 * the hosted-page signer at the moment of the answer, the same way for the create answer and for a
 * read; it works until an hour after the session ends (`hostedLinkEnded`), whichever answer gave it.
 */
export class HostedLink {
  constructor(private readonly links: Pick<SignedLinks, 'url'>) {}

  /** The create answer: the tenant that just made the session. */
  forCreated(sessionId: string): string {
    return this.links.url(sessionId);
  }

  /**
   * A read: a tenant key gets the link while the session is open, so it can send it again; a
   * browser's client_secret, a user token or a session that has moved on gets none.
   */
  forRead(actor: Pick<Actor, 'kind'> | null | undefined, s: { id: string; status: string }): string | undefined {
    if (actor?.kind !== 'tenant_key' || !OPEN_STATUSES.includes(s.status)) return undefined;
    return this.links.url(s.id);
  }
}
