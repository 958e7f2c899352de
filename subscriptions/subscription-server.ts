import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { getOperationAST, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { Context as WsContext } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BulkImportProgressSource, SubscriptionContext, WebhookEventSource } from '../schema/session-subscription.resolver';
import { formatGraphQLError } from '../schema/graphql-errors';
import type { Actor } from '../src/auth/actor';
import type { AuthService } from '../src/auth/auth.service';
import type { Config } from '../src/config';
import type { ContextFactory, RequestContext } from '../src/context';
import { DomainError, type ErrorCode } from '../src/errors';
import type { Logger } from '../src/logger';
import type { SessionStatusHub } from '../src/sessions/session-status.hub';
import { sharedSubscribe, type DirectSink } from './shared-execution';
import { writeNext } from './next-writer';
import type { ConnectionBudget } from '../src/sessions/status-subscriber';

/** WebSocket close codes this server uses (graphql-ws's own: 4400 bad request, 4408 init timeout, ...). */
export const WS_CLOSE = {
  /** No, a wrong, or a revoked credential in connection_init; or one without sessions:read. */
  forbidden: 4403,
  /** The credential already holds SUBSCRIPTION_MAX_CONNECTIONS_PER_KEY connections on this instance. */
  tooManyConnections: 4429,
  /** The client reads too slowly: more than SUBSCRIPTION_QUEUE_LIMIT events waited for it. It may reconnect. */
  slowConsumer: 1013,
  /** Server shutdown, after every subscription was completed. */
  goingAway: 1001,
} as const;

export type SubscriptionServerOptions = {
  schema: GraphQLSchema;
  contexts: ContextFactory;
  hub: SessionStatusHub;
  /** Progress of bulk imports, for the `bulkImport` subscription. */
  bulkImports: BulkImportProgressSource;
  /** The tenant's test-mode webhook events, for the `webhookEvents` subscription (`webhooks listen`). */
  webhookEvents: WebhookEventSource;
  /** Re-checks the keys of open connections (revocations made anywhere reach them through the database). */
  auth: Pick<AuthService, 'revokedKeyIds'>;
  logger: Logger;
  limits: Config['subscriptions'];
  /** Rules added to GraphQL's own when validating a subscription document (e.g. the depth and cost limits of HTTP). */
  validationRules?: readonly ValidationRule[];
  /**
   * Runs before every subscription starts, with the freshly authenticated context. The hook for
   * metering: the rate limiter charges a subscription start to `verify_read` here (docs/rate-limits.md).
   * Throwing a DomainError refuses the subscription with that error code; the connection stays open.
   */
  beforeSubscribe?: (ctx: RequestContext) => Promise<void> | void;
};

export type SubscriptionServer = {
  /** Completes every subscription (clients get `complete`), then closes every socket with 1001. */
  close(): Promise<void>;
};

type Connection = {
  ws: WsContext<Record<string, unknown>, Extra>;
  socket: WebSocket;
  authorization: string;
  actor: Actor;
  /** The context authenticated at connection_init, reused by subscriptions within one re-check interval. */
  initial: { context: RequestContext; at: number } | null;
  credentialId: string;
  budget: ConnectionBudget;
};

/**
 * graphql-ws (`graphql-transport-ws`) on the HTTP server's /graphql path. Protocol logic stays in
 * graphql-ws; this adapter adds authentication through the shared ContextFactory, limits, and the
 * revocation watch that long-lived connections need.
 */
export function attachSubscriptionServer(server: http.Server, o: SubscriptionServerOptions): SubscriptionServer {
  // Client messages are tiny (init, subscribe, complete); a large frame is abuse, not a query.
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: 64 * 1024 });
  const connections = new Map<object, Connection>();
  const perCredential = new Map<string, number>();
  const format = formatGraphQLError(o.logger);
  const rules = [...specifiedRules, ...(o.validationRules ?? [])];
  // The query text of each parsed document, for the shared-execution cache key.
  const queryOf = new WeakMap<DocumentNode, string>();
  // Many clients send the same few subscription texts: parse and validate each text once (the schema is fixed).
  const checkedDocuments = new Map<string, { document: DocumentNode } | { errors: readonly GraphQLError[] }>();
  const checkDocument = (query: string) => {
    let checked = checkedDocuments.get(query);
    if (checked) return checked;
    try {
      const document = parse(query);
      const invalid = validate(o.schema, document, rules);
      checked = invalid.length > 0 ? { errors: invalid } : { document };
      if (!('errors' in checked)) queryOf.set(document, query);
    } catch (err) {
      checked = { errors: [err instanceof GraphQLError ? err : codedError('invalid_request', 'Invalid GraphQL document')] };
    }
    if (checkedDocuments.size >= 1000) checkedDocuments.delete(checkedDocuments.keys().next().value!);
    checkedDocuments.set(query, checked);
    return checked;
  };
  const formatAll = (errors: readonly GraphQLError[]) => errors.map((e) => format(e.toJSON(), e));
  // Each subscription's direct sink (shared-execution.ts), by its context value.
  const sinks = new WeakMap<object, DirectSink>();

  const disposable = useServer<Record<string, unknown>, Record<string, never>>(
    {
      schema: o.schema,
      isProd: true,
      subscribe: sharedSubscribe({
        // The actor kind is part of what a result may depend on (visibility), so a session client_secret
        // and a tenant key never share one execution even if a field someday reads it.
        cacheKeyOf: (args) =>
          `${(args.contextValue as SubscriptionContext).actor?.kind ?? ''}\n${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? {})}\n${queryOf.get(args.document) ?? ''}`,
        serialize: (result) => JSON.stringify(result.errors ? { ...result, errors: formatAll(result.errors) } : result),
        sinkOf: (args) => sinks.get(args.contextValue as object),
      }),
      onConnect: async (ctx) => {
        const authorization = authorizationOf(ctx.connectionParams);
        let context: RequestContext;
        try {
          context = await o.contexts.create({ authorization, requestId: `ws_${randomUUID()}` });
        } catch {
          return false; // graphql-ws closes with 4403 Forbidden
        }
        const actor = context.actor;
        if (!actor || authorization === undefined || actor.kind === 'end_user' || actor.kind === 'hosted_page') return false;
        if (actor.kind === 'tenant_key' && !actor.scopes.includes('sessions:read')) return false;
        const credentialId = actor.kind === 'tenant_key' ? `key:${actor.keyId}` : `session:${actor.sessionId}`;
        const held = perCredential.get(credentialId) ?? 0;
        if (held >= o.limits.maxConnectionsPerKey) {
          ctx.extra.socket.close(WS_CLOSE.tooManyConnections, 'Too many connections for this credential');
          return false;
        }
        perCredential.set(credentialId, held + 1);
        const socket = ctx.extra.socket;
        const budget: ConnectionBudget = {
          pending: 0,
          limit: o.limits.queueLimit,
          revoked: false,
          overflow: () => {
            if (socket.readyState !== socket.OPEN) return;
            o.logger.warn({ credentialId: redact(credentialId), pending: budget.pending }, 'closing a slow subscription consumer');
            socket.close(WS_CLOSE.slowConsumer, 'Slow consumer: too many undelivered events');
          },
        };
        connections.set(ctx, { ws: ctx, socket, authorization, actor, initial: { context, at: Date.now() }, credentialId, budget });
        return true;
      },
      onClose: (ctx) => {
        const c = connections.get(ctx);
        if (!c) return;
        connections.delete(ctx);
        const left = (perCredential.get(c.credentialId) ?? 1) - 1;
        if (left > 0) perCredential.set(c.credentialId, left);
        else perCredential.delete(c.credentialId);
      },
      onSubscribe: async (ctx, id, payload) => {
        const c = connections.get(ctx);
        if (!c) return [codedError('unauthorized', 'Missing or invalid credential')];
        // graphql-ws has already reserved this subscription's slot, so the count includes it.
        if (Object.keys(ctx.subscriptions).length > o.limits.maxPerConnection) {
          return [codedError('rate_limited', `At most ${o.limits.maxPerConnection} subscriptions per connection`)];
        }
        const checked = checkDocument(payload.query);
        if ('errors' in checked) return checked.errors;
        const document = checked.document;
        const operation = getOperationAST(document, payload.operationName);
        if (!operation) return [codedError('invalid_request', 'Unable to identify the operation')];
        if (operation.operation !== 'subscription') {
          return [codedError('invalid_request', 'Only subscriptions run over WebSocket; send queries and mutations with HTTP POST /graphql')];
        }
        // Authenticate again per subscription (a key revoked since connection_init starts nothing new),
        // except right after connection_init, which is as fresh as the revocation re-check.
        let request: RequestContext;
        if (c.initial && Date.now() - c.initial.at < o.limits.authRecheckMs && !c.budget.revoked) {
          request = { ...c.initial.context, requestId: `ws_${randomUUID()}` };
          c.initial = null;
        } else {
          try {
            request = await o.contexts.create({ authorization: c.authorization, requestId: `ws_${randomUUID()}` });
          } catch {
            c.socket.close(WS_CLOSE.forbidden, 'Forbidden: credential no longer valid');
            return [codedError('unauthorized', 'Missing or invalid credential')];
          }
        }
        if (o.beforeSubscribe) {
          try {
            await o.beforeSubscribe(request);
          } catch (err) {
            if (err instanceof DomainError) return [codedError(err.code, err.message)];
            throw err;
          }
        }
        const contextValue: SubscriptionContext = {
          ...request,
          sessionStatus: { watch: (id) => o.hub.watch(request.actor, id ?? null, c.budget) },
          bulkImports: o.bulkImports,
          webhookEvents: o.webhookEvents,
        };
        sinks.set(contextValue, { prefix: `{"id":${JSON.stringify(id)},"type":"next","payload":`, write: (message) => writeNext(c.socket, c.budget, message) });
        return { schema: o.schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue };
      },
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: formatAll(result.errors) } : undefined),
      onError: (_ctx, _id, _payload, errors) => formatAll(errors),
    },
    wss,
    o.limits.keepAliveMs,
  );
  wss.on('error', (err) => o.logger.error({ err }, 'WebSocket server error'));

  // Keys, and the data-rights state of watched users, are re-checked for the whole instance at once:
  // one query each per interval, however many sockets.
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      await o.hub.recheckUsers().catch((err: unknown) => o.logger.warn({ err }, 'subscription data-rights re-check failed'));
      const byKey = new Map<string, Connection[]>();
      for (const c of connections.values()) {
        if (c.actor.kind !== 'tenant_key') continue;
        const list = byKey.get(c.actor.keyId) ?? [];
        list.push(c);
        byKey.set(c.actor.keyId, list);
      }
      if (byKey.size === 0) return;
      for (const keyId of await o.auth.revokedKeyIds([...byKey.keys()])) {
        for (const c of byKey.get(keyId) ?? []) {
          c.budget.revoked = true;
          c.socket.close(WS_CLOSE.forbidden, 'Forbidden: credential revoked');
        }
      }
    } catch (err) {
      o.logger.warn({ err }, 'subscription credential re-check failed');
    } finally {
      sweeping = false;
    }
  };
  const sweeper = setInterval(() => void sweep(), o.limits.authRecheckMs);
  sweeper.unref();

  return {
    close: async () => {
      clearInterval(sweeper);
      o.hub.completeAll();
      // Let graphql-ws send `complete` for each subscription before the sockets go.
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline && [...connections.values()].some((c) => Object.keys(c.ws.subscriptions).length > 0)) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await disposable.dispose();
    },
  };
}

/** The credential from connection_init: `{ "authorization": "Bearer <credential>" }` (any key case). */
function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!params) return undefined;
  for (const [k, v] of Object.entries(params)) if (k.toLowerCase() === 'authorization' && typeof v === 'string') return v;
  return undefined;
}

function codedError(code: ErrorCode, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/** Logs name the kind and a prefix of the id, never a whole credential id. */
const redact = (credentialId: string) => credentialId.slice(0, 14);
