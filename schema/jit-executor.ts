import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { getOperationAST, GraphQLError, printSchema } from 'graphql';
import { CompiledOperations, isCompiledQuery } from './compiled-operations';

const SUBSCRIPTION_OVER_HTTP = 'Subscriptions are served over WebSocket (protocol graphql-transport-ws) on this same path, not over HTTP';

/**
 * Apollo Server executes through this executor (Apollo calls the plug-in a "gateway", its `gateway` option) instead of graphql-js: each distinct document
 * (Apollo's query hash plus the operation name) runs compiled (see compiled-operations.ts). Apollo
 * still parses, validates (with the Armor limits), builds the context, formats errors and sets
 * HTTP statuses; only the walk over the selection set changes. Subscriptions are served by
 * graphql-ws on the same path; one sent over HTTP is refused as a client mistake.
 */
export function jitExecutor(operations: CompiledOperations): GatewayInterface {
  const schema = operations.schema;
  const executor: GatewayExecutor = async (rc) => {
    // Apollo found no operation to run (an operationName naming none of the document's operations, "" included, or
    // none given for a document with several). graphql-js would answer with an error, which Apollo turns into a 400;
    // graphql-jit would run the first operation instead, which Apollo treats as its own bug (a 500).
    if (!(rc as { operation?: unknown }).operation) return { errors: [new GraphQLError(unresolvedOperation(rc.request.operationName))] };
    const operationName = rc.operationName ?? rc.request.operationName ?? null;
    const key = `${rc.queryHash}\u0000${operationName ?? ''}`;
    let query = operations.cached(key);
    if (!query) {
      if (getOperationAST(rc.document, operationName)?.operation === 'subscription') {
        return { errors: [new GraphQLError(SUBSCRIPTION_OVER_HTTP, { extensions: { code: 'invalid_request' } })] };
      }
      const compiled = operations.get(key, rc.document, operationName ?? undefined);
      if (!isCompiledQuery(compiled)) return compiled;
      query = compiled;
    }
    return CompiledOperations.run(query, rc.context, rc.request.variables ?? {});
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

function unresolvedOperation(name: string | undefined): string {
  return name === undefined || name === null ? 'Must provide operation name if query contains multiple operations.' : `Unknown operation named "${name}".`;
}
