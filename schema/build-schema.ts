import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { ApiKeyResolver } from './api-key.resolver';
import { CscaResolver } from './csca.resolver';
import { RateLimitResolver } from './rate-limit.resolver';
import { SessionResolver } from './session.resolver';

export const RESOLVERS = [SessionResolver, ApiKeyResolver, CscaResolver, RateLimitResolver] as const;

/** Resolver instances, built by the composition root with their services. */
export type ResolverInstances = { get(cls: unknown): unknown };

export function buildGraphQLSchema(container: ResolverInstances): GraphQLSchema {
  return buildSchemaSync({
    resolvers: [...RESOLVERS],
    container: { get: (cls) => container.get(cls) },
    validate: false, // inputs are validated once, in the domain services, for GraphQL and REST alike
    emitSchemaFile: false,
  });
}
