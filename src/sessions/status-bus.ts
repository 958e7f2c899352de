import { createPubSub, type PubSub } from '@graphql-yoga/subscription';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';
import type { Logger } from '../logger';
import { Topic, type Topics } from './topics';

/**
 * The pub/sub engine between instances: in-process without Redis, Redis with it. Only the instance
 * that commits a transition publishes; every instance (itself included) receives it through `listen`.
 */
export type StatusBus = {
  readonly kind: 'in-process' | 'redis';
  publish: PubSub<Topics>['publish'];
  /**
   * Starts delivering bus events to `onEvent`. Resolves once the subscription is in place (for Redis:
   * acknowledged by the server), so nothing published after that is missed.
   */
  listen(onEvent: (event: Topics[Topic.SessionStatus][0]) => void): Promise<void>;
  close(): Promise<void>;
};

export function createStatusBus(redisUrl: string | undefined, logger: Logger): StatusBus {
  return redisUrl ? redisBus(redisUrl, logger) : inProcessBus(logger);
}

function inProcessBus(logger: Logger): StatusBus {
  const pubSub = createPubSub<Topics>();
  const consumer = consume(pubSub, async () => {}, logger);
  return { kind: 'in-process', publish: pubSub.publish, listen: consumer.listen, close: consumer.stop };
}

function redisBus(url: string, logger: Logger): StatusBus {
  // A connection in subscriber mode cannot publish, hence two clients.
  const publishClient = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(url, { lazyConnect: false });
  for (const c of [publishClient, subscribeClient]) c.on('error', (err) => logger.warn({ err: err.message }, 'redis (subscriptions) error'));
  const pubSub = createPubSub<Topics>({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) });
  // The event target sends SUBSCRIBE without waiting for it; SUBSCRIBE is idempotent and replies in
  // order on the same connection, so awaiting a second one proves the first is in place.
  const ready = async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis (REDIS_URL) did not accept the subscription within 10 s')), 10_000);
    });
    try {
      await Promise.race([subscribeClient.subscribe(Topic.SessionStatus), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  const consumer = consume(pubSub, ready, logger);
  return {
    kind: 'redis',
    publish: pubSub.publish,
    listen: consumer.listen,
    close: async () => {
      await consumer.stop();
      await Promise.allSettled([publishClient.quit(), subscribeClient.quit()]);
    },
  };
}

/**
 * Pumps the bus topic into `onEvent`. Should the subscription fail (e.g. the repeater overflows), it
 * is logged and opened again rather than leaving this instance deaf, or crashing it.
 */
function consume(pubSub: PubSub<Topics>, ready: () => Promise<void>, logger: Logger) {
  let iterator: AsyncIterator<Topics[Topic.SessionStatus][0]> | null = null;
  let stopped = false;
  const open = (onEvent: (event: Topics[Topic.SessionStatus][0]) => void) => {
    const it = pubSub.subscribe(Topic.SessionStatus)[Symbol.asyncIterator]();
    iterator = it;
    const first = it.next(); // a Repeater attaches its listener on the first pull
    const pump = async () => {
      for (let r = await first; !r.done; r = await it.next()) onEvent(r.value);
    };
    pump().catch((err: unknown) => {
      logger.error({ err }, 'session status bus subscription failed; resubscribing');
      if (!stopped) open(onEvent);
    });
  };
  return {
    listen: async (onEvent: (event: Topics[Topic.SessionStatus][0]) => void) => {
      open(onEvent);
      await ready();
    },
    stop: async () => {
      stopped = true;
      await iterator?.return?.();
    },
  };
}
