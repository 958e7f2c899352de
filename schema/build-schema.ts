import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
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

export const RESOLVERS = [SessionResolver, ApiKeyResolver, CscaResolver, RateLimitResolver, WebhookResolver, SessionSubscriptionResolver, SanctionsResolver, FlowResolver] as const;

/** Resolver instances, built by the composition root with their services. */
export type ResolverInstances = { get(cls: unknown): unknown };

/**
 * `pubSub` is the process's bus; type-graphql insists on one, though `sessionStatusChanged` brings
 * its own `subscribe` (it must read the current state first). Tools that only print the schema omit it.
 */
export function buildGraphQLSchema(container: ResolverInstances, pubSub: PubSub = createPubSub()): GraphQLSchema {
  return buildSchemaSync({
    resolvers: [...RESOLVERS],
    container: { get: (cls) => container.get(cls) },
    pubSub,
    validate: false, // inputs are validated once, in the domain services, for GraphQL and REST alike
    emitSchemaFile: false,
  });
}
