import { Arg, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import type { HostedLinks } from '../src/hosted/hosted-links';
import { viewOfSnapshot, type SessionStatusEvent } from '../src/sessions/session-status-event';
import { toSession } from './session.mapper';
import { Session } from './session.type';

/** What the WebSocket transport adds to the request context: the status feed, bound to this connection. */
export type SessionStatusSource = { watch(id: string | null | undefined): Promise<AsyncIterableIterator<SessionStatusEvent>> };
export type SubscriptionContext = RequestContext & { sessionStatus?: SessionStatusSource };

type SessionStatusArgs = { id?: string | null };

@Resolver()
export class SessionSubscriptionResolver {
  constructor(private readonly links: HostedLinks) {}

  @Subscription(() => Session, {
    description:
      'Status changes of one session (`id`): its current status first, then every later change in order, ending after a terminal status. ' +
      "Without `id`, a tenant key receives every change of its tenant's sessions in the key's mode. Over WebSocket (graphql-transport-ws) at /graphql.",
    subscribe: ({ args, context }) => {
      const source = (context as SubscriptionContext).sessionStatus;
      if (!source) throw new DomainError('invalid_request', 'Subscriptions run over WebSocket (graphql-transport-ws) at /graphql');
      return source.watch((args as SessionStatusArgs).id);
    },
  })
  sessionStatusChanged(
    @Root() event: SessionStatusEvent,
    @Arg('id', () => ID, { nullable: true, description: 'The session to watch; required for tenant keys that want one session.' }) _id?: string | null,
  ): Session {
    return toSession(viewOfSnapshot(event.session), this.links);
  }
}
