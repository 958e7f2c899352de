import 'reflect-metadata';
import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { createPubSub } from '@graphql-yoga/subscription';
import { buildSchemaSync, type PubSub } from 'type-graphql';
import { ApiKeyResolver } from './api-key.resolver';
import { CscaResolver } from './csca.resolver';
import { RateLimitResolver } from './rate-limit.resolver';
import { SanctionsResolver } from './sanctions.resolver';
import { SessionResolver } from './session.resolver';
import { FlowResolver } from './flow.resolver';
import { SessionSubscriptionResolver } from './session-subscription.resolver';
import { WebhookResolver } from './webhook.resolver';
import { AccountsResolver } from './accounts.resolver';
import { AuditResolver } from './audit.resolver';
import { RetentionResolver } from './retention.resolver';
import { DsrJobResolver } from './dsr-job.resolver';
import { DataRightsResolver } from './data-rights.resolver';
import { SessionDecisionResolver } from './session-decision.resolver';
import { BulkImportResolver } from './bulk-import.resolver';
import { WebhookListenResolver } from './webhook-listen.resolver';
import { assertAcceptableInput } from '../src/validation/input-limits';

export const RESOLVERS = [SessionResolver, ApiKeyResolver, CscaResolver, RateLimitResolver, WebhookResolver, SessionSubscriptionResolver, SanctionsResolver, FlowResolver, AccountsResolver, AuditResolver, RetentionResolver, DsrJobResolver, DataRightsResolver, SessionDecisionResolver, BulkImportResolver, WebhookListenResolver] as const;

/** Resolver instances, built by the composition root with their services. */
export type ResolverInstances = { get(cls: unknown): unknown };

/**
 * `pubSub` is the process's bus; type-graphql insists on one, though `sessionStatusChanged` brings
 * its own `subscribe` (it must read the current state first). Tools that only print the schema omit it.
 */
export function buildGraphQLSchema(container: ResolverInstances, pubSub: PubSub = createPubSub()): GraphQLSchema {
  const schema = buildSchemaSync({
    resolvers: [...RESOLVERS],
    container: { get: (cls) => container.get(cls) },
    pubSub,
    validate: false, // inputs are validated once, in the domain services, for GraphQL and REST alike
    emitSchemaFile: false,
  });
  return withInputLimits(schema);
}

/**
 * Every root field checks its arguments against the input limits (src/validation/input-limits.ts)
 * before its resolver runs. Subscriptions run these same fields, and every REST route record checks
 * its path parameters, body and query against the same limits (mountRoutes in rest-adapter/route-record.ts), so each
 * transport gives the same answer to the same bad value.
 */
function withInputLimits(schema: GraphQLSchema): GraphQLSchema {
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      if (field.args.length === 0) continue;
      const guard = <S, C>(inner: GraphQLFieldResolver<S, C> | undefined): GraphQLFieldResolver<S, C> | undefined =>
        inner &&
        ((source, args, context, info) => {
          assertAcceptableInput(args);
          return inner(source, args, context, info);
        });
      field.resolve = guard(field.resolve);
      field.subscribe = guard(field.subscribe);
    }
  }
  return schema;
}
