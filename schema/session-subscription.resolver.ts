import { Arg, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { BulkImportService } from '../src/bulk-import/bulk-import.service';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { isRefusal, viewOfSnapshot, type SessionWatchItem } from '../src/sessions/session-status-event';
import type { WebhookEventFeed } from '../src/webhooks/webhook-event.feed';
import { toSession } from './session.mapper';
import { Session } from './session.type';

/** What the WebSocket transport adds to the request context: the status feed, bound to this connection. */
export type SessionStatusSource = { watch(id: string | null | undefined): Promise<AsyncIterableIterator<SessionWatchItem>> };
/** Bulk imports' progress (src/bulk-import/bulk-import.service.ts), read by the `bulkImport` subscription. */
export type BulkImportProgressSource = Pick<BulkImportService, 'find' | 'progress'>;
/** The tenant's test-mode webhook events (src/webhooks/webhook-event.feed.ts), read by the `webhookEvents` subscription. */
export type WebhookEventSource = Pick<WebhookEventFeed, 'follow'>;
export type SubscriptionContext = RequestContext & { sessionStatus?: SessionStatusSource; bulkImports?: BulkImportProgressSource; webhookEvents?: WebhookEventSource };

type SessionStatusArgs = { id?: string | null };

@Resolver()
export class SessionSubscriptionResolver {
  @Subscription(() => Session, {
    description:
      'Status changes of one session (`id`): its current status first, then every later change in order, ending after a terminal status. ' +
      'Should the session stop being readable meanwhile (its user restricts processing: `user_restricted`), the last message carries that error, then the subscription completes. ' +
      "Without `id`, a tenant key receives every change of its tenant's sessions in the key's mode. Over WebSocket (graphql-transport-ws) at /graphql.",
    subscribe: ({ args, context }) => {
      const source = (context as SubscriptionContext).sessionStatus;
      if (!source) throw new DomainError('invalid_request', 'Subscriptions run over WebSocket (graphql-transport-ws) at /graphql');
      return source.watch((args as SessionStatusArgs).id);
    },
  })
  sessionStatusChanged(
    @Root() event: SessionWatchItem,
    @Arg('id', () => ID, { nullable: true, description: 'The session to watch; required for tenant keys that want one session.' }) _id?: string | null,
  ): Session {
    // The watch ended because the session may no longer be read (e.g. user_restricted): the client gets the error, then `complete`.
    if (isRefusal(event)) throw event.error;
    return toSession(viewOfSnapshot(event.session));
  }
}
