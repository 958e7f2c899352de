import { DocumentNode, execute, GraphQLSchema, parse, validate } from 'graphql';
import type { RequestContext } from '../src/context';
import { DomainError } from '../src/errors';
import { errorCodeOf } from '../schema/graphql-errors';

const SESSION_FIELDS = `
  fragment SessionFields on Session {
    id hostedUrl status tier referenceId createdAt completedAt expiresAt livemode flowId redirectUrl locale metadata
    result {
      decision achievedTier confidence evidenceUrls badges chip
      checks { name status score reason }
      signals { source score }
      sanctionsHits { list entryId programme subjectType matchedName score listVersion reasons { feature score detail } }
    }
  }`;

/** The GraphQL operations behind the /v1 routes, parsed and validated once at start-up. */
export const OPERATION_SOURCES = {
  createSession: `mutation CreateSession($input: CreateSessionInput!) { createSession(input: $input) { ...SessionFields clientSecret } } ${SESSION_FIELDS}`,
  session: `query Session($id: ID!) { session(id: $id) { ...SessionFields } } ${SESSION_FIELDS}`,
  reviewSession: `mutation ReviewSession($id: ID!, $input: ReviewSessionInput!) { reviewSession(id: $id, input: $input) { ...SessionFields } } ${SESSION_FIELDS}`,
  createWebhookEndpoint: `mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id url events livemode signingSecret createdAt } }`,
  replayWebhookEvents: `mutation ReplayWebhookEvents($id: ID!, $input: ReplayWebhookEventsInput!) { replayWebhookEvents(id: $id, input: $input) { queued } }`,
} as const;

export type OperationName = keyof typeof OPERATION_SOURCES;

/** Runs one pre-parsed operation with the request's context; an error becomes the DomainError a route maps. */
export class RestOperations {
  private readonly documents: Record<OperationName, DocumentNode>;

  constructor(private readonly schema: GraphQLSchema) {
    this.documents = Object.fromEntries(
      Object.entries(OPERATION_SOURCES).map(([name, source]) => {
        const doc = parse(source);
        const errors = validate(schema, doc);
        if (errors.length) throw new Error(`REST operation ${name} does not match the schema: ${errors[0].message}`);
        return [name, doc];
      }),
    ) as Record<OperationName, DocumentNode>;
  }

  async run<T>(name: OperationName, variables: Record<string, unknown>, context: RequestContext): Promise<T> {
    const result = await execute({ schema: this.schema, document: this.documents[name], variableValues: variables, contextValue: context });
    if (result.errors?.length) {
      const [first] = result.errors;
      const code = errorCodeOf(first);
      if (code === 'internal_error') throw first.originalError ?? first;
      throw new DomainError(code, first.message);
    }
    return (result.data as Record<string, T>)[name];
  }
}
