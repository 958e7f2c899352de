import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { DomainError, ErrorCode, HTTP_STATUS, isErrorCode } from '../src/errors';
import type { Logger } from '../src/logger';

/** GraphQL's own failures (syntax, validation, variable coercion) are the client's mistake. */
const CLIENT_ERROR_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'BAD_REQUEST', 'PERSISTED_QUERY_NOT_FOUND', 'OPERATION_RESOLUTION_FAILURE']);

/** Maps any execution error to the stable code it carries to clients. */
export function errorCodeOf(error: unknown): ErrorCode {
  const original = unwrapResolverError(error);
  if (original instanceof DomainError) return original.code;
  if (error instanceof GraphQLError) {
    const code = error.extensions?.code;
    if (isErrorCode(code)) return code;
    if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code)) return 'invalid_request';
    if (!error.originalError) return 'invalid_request'; // validation and coercion errors carry no cause
  }
  return 'internal_error';
}

/** Apollo `formatError`: domain errors keep their message and code; anything else is masked and logged. */
export function formatGraphQLError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const code = errorCodeOf(error);
    if (code === 'internal_error') {
      logger.error({ err: unwrapResolverError(error) }, 'unexpected GraphQL error');
      return { message: 'Internal server error', path: formatted.path, extensions: { code } };
    }
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
  };
}

/** A GraphQL error that also sets the HTTP status (used where Apollo lets us: context creation). */
export function httpGraphQLError(err: DomainError): GraphQLError {
  return new GraphQLError(err.message, { extensions: { code: err.code, http: { status: HTTP_STATUS[err.code] } } });
}
