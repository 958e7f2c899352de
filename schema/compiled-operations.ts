import { DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/** Distinct operations kept compiled; past it the cache starts over (clients send few distinct documents). */
const MAX_COMPILED = 1000;

/**
 * The one place operations are compiled with graphql-jit, and the one cache of compiled operations:
 * Apollo's executor (jit-executor.ts) runs what this returns. A compiled operation runs its resolvers
 * without walking the document again, which was the largest share of a read's CPU beyond the
 * resolvers themselves.
 */
export class CompiledOperations {
  private readonly compiled = new Map<string, CompiledQuery>();

  constructor(readonly schema: GraphQLSchema) {}

  /** The operation compiled under `key`, if it has been. */
  cached(key: string): CompiledQuery | undefined {
    return this.compiled.get(key);
  }

  /** The compiled operation of `document` cached under `key`, compiled on first use; the errors when it does not compile. */
  get(key: string, document: DocumentNode, operationName?: string): CompiledQuery | ExecutionResult {
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const result = compileQuery(this.schema, document, operationName);
    if (!isCompiledQuery(result)) return result;
    if (this.compiled.size >= MAX_COMPILED) this.compiled.clear();
    this.compiled.set(key, result);
    return result;
  }

  /** Runs a compiled operation with graphql-js's error shape, which Apollo's formatting and the REST adapter read. */
  static async run(query: CompiledQuery, context: unknown, variables: Record<string, unknown>): Promise<ExecutionResult> {
    return withStandardErrors(await query.query(undefined, context, variables));
  }
}

export { isCompiledQuery };

/**
 * graphql-jit's errors are GraphQLErrors without the `extensions` object graphql-js always gives
 * them, and error formatting reads `extensions.code`: rebuild them as graphql-js errors.
 * A result without `data` failed before execution, while coercing the variables: those errors are
 * the client's (a date or JSON variable that is not one), coded BAD_USER_INPUT as graphql-js's
 * own coercion errors are in Apollo, whatever the scalar threw.
 */
function withStandardErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const coercion = result.data === undefined || result.data === null ? { code: 'BAD_USER_INPUT' } : {};
  const errors = result.errors.map((e) => {
    const standard = new GraphQLError(e.message, { path: e.path, originalError: e.originalError ?? undefined, extensions: { ...(e.extensions ?? {}), ...(e.path ? {} : coercion) } });
    return e.locations ? Object.assign(standard, { locations: e.locations }) : standard;
  });
  return { ...result, errors };
}
