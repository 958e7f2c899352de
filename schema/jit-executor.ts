import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { ExecutionResult, getOperationAST, GraphQLError, GraphQLSchema, printSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

const SUBSCRIPTION_OVER_HTTP = 'Subscriptions are served over WebSocket (protocol graphql-transport-ws) on this same path, not over HTTP';

/** Distinct operations kept compiled; past it the cache starts over (clients send few distinct documents). */
const MAX_COMPILED = 1000;

/**
 * Apollo Server executes through this "gateway" instead of graphql-js: each distinct document
 * (Apollo's query hash plus the operation name) is compiled once with graphql-jit and its compiled
 * form runs every later request. Apollo still parses, validates (with the Armor limits), builds the
 * context, formats errors and sets HTTP statuses; only the walk over the selection set changes,
 * which was the largest share of a GraphQL read's CPU beyond what the REST route pays.
 * Subscriptions are served by graphql-ws on the same path; one sent over HTTP is refused as a
 * client mistake.
 */
export function jitExecutionGateway(schema: GraphQLSchema): GatewayInterface {
  const compiled = new Map<string, CompiledQuery>();
  const executor: GatewayExecutor = async (rc) => {
    const operationName = rc.operationName ?? rc.request.operationName ?? null;
    const key = `${rc.queryHash}\u0000${operationName ?? ''}`;
    let query = compiled.get(key);
    if (!query) {
      if (getOperationAST(rc.document, operationName)?.operation === 'subscription') {
        return { errors: [new GraphQLError(SUBSCRIPTION_OVER_HTTP, { extensions: { code: 'invalid_request' } })] };
      }
      const result = compileQuery(schema, rc.document, operationName ?? undefined);
      if (!isCompiledQuery(result)) return result;
      if (compiled.size >= MAX_COMPILED) compiled.clear();
      compiled.set(key, result);
      query = result;
    }
    return withStandardErrors(await query.query(undefined, rc.context, rc.request.variables ?? {}));
  };
  return {
    load: async () => ({ executor }),
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => {};
    },
    stop: async () => {},
  };
}

/**
 * graphql-jit's errors are GraphQLErrors without the `extensions` object graphql-js always gives
 * them, and Apollo's error formatting reads `extensions.code`: rebuild them as graphql-js errors.
 * A result without `data` failed before execution, while coercing the variables: those errors are
 * the client's (a date or JSON variable that is not one), coded BAD_USER_INPUT as graphql-js's
 * own coercion errors are in Apollo, whatever the scalar threw.
 */
export function withStandardErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const coercion = result.data === undefined || result.data === null ? { code: 'BAD_USER_INPUT' } : {};
  const errors = result.errors.map((e) => {
    const standard = new GraphQLError(e.message, { path: e.path, originalError: e.originalError ?? undefined, extensions: { ...(e.extensions ?? {}), ...(e.path ? {} : coercion) } });
    return e.locations ? Object.assign(standard, { locations: e.locations }) : standard;
  });
  return { ...result, errors };
}
