import { Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { listenerScope, type FeedEvent } from '../src/webhooks/webhook-event.feed';
import type { SubscriptionContext } from './session-subscription.resolver';
import { WebhookEvent } from './webhook-event.type';

/** The source of `webhooks listen` (D23): thin transport over WebhookEventFeed. */
@Resolver()
export class WebhookListenResolver {
  @Subscription(() => WebhookEvent, {
    name: 'webhookEvents',
    description:
      "The key's tenant's test-mode webhook events as they are committed, from the moment of subscribing: every type a webhook endpoint may receive (D23). " +
      'A test key with webhooks:manage only; a live key is refused (`invalid_request`): live events go to registered endpoints. ' +
      'Read from the database, so every instance streams the same events. Over WebSocket (graphql-transport-ws) at /graphql; `npm run cli -- webhooks listen` is its client.',
    subscribe: ({ context }) => {
      const scope = listenerScope((context as RequestContext).actor);
      // type-graphql calls `subscribe` without the resolver instance: the WebSocket transport puts the feed in the context.
      const feed = (context as SubscriptionContext).webhookEvents;
      if (!feed) throw new DomainError('invalid_request', 'Subscriptions run over WebSocket (graphql-transport-ws) at /graphql');
      return feed.follow(scope);
    },
  })
  webhookEvents(@Root() e: FeedEvent): WebhookEvent {
    return { id: e.eventId, type: e.type, createdAt: e.createdAt, livemode: e.livemode, data: e.payload, body: e.body };
  }
}
