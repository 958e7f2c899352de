import type { Request, RequestHandler, Router } from 'express';
import { z } from 'zod';
import { refusalOfPathOwner, type Guard, type RoutePolicy } from '../src/auth/authorization-policy';
import type { TenantKeyActor } from '../src/auth/actor';
import { DomainError } from '../src/errors';
import { assertAcceptableInput } from '../src/validation/input-limits';
import type { BucketName } from '../src/rate-limit/buckets';
import { answerDomainError } from '../http/error-response';
import { jsonBody, parseJsonIfAny } from '../http/json-body';
import type { V1Services } from './v1-services';
import { restRoute, type AuthenticatedContext, type RestResult } from './rest-route';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One documented answer of a route: its description, and the body's schema (zod, a shared component of
 * openapi/base.yaml by name, a list of one, or an authored JSON Schema that combines components), as `mediaType` (JSON unless named: the bulk import's NDJSON results).
 */
export type RouteResponse = { description: string; schema?: z.ZodType | { component: string } | { listOf: string } | { jsonSchema: Record<string, unknown> }; mediaType?: string };

/**
 * A body the handler reads itself, for the routes whose body is not one JSON object checked by a schema here:
 * `json` (parsed, 415 for another type, then read by the service), `json_if_any` (none, or JSON), `stream`
 * (left unread for the handler to stream: the bulk import's 25 MiB). The document's request body for it is
 * authored in openapi/routes.yaml (`requestBody`). A parsed one meets the input limits at the mount like any
 * other body; a stream's records meet them in its service.
 */
export type RawBody = { read: 'json' | 'json_if_any' | 'stream' };
export const isRawBody = (b: RouteRecord['body']): b is RawBody => typeof b === 'object' && b !== null && 'read' in b;

/** What a handler gets: the request's parsed parts, the authenticated context, and the services the records call. */
export type RouteInput<B, Q> = { req: Request; body: B; query: Q; ctx: AuthenticatedContext; services: V1Services };

/**
 * One /v1 route, said once (issue 45): the router mounts it (mountRoutes), the authorization policy
 * and the rate-limit check read its guard and bucket (rest-adapter/v1-routes.ts), and the `paths` of
 * openapi.yaml are generated from it (rest-adapter/openapi-document.ts, `npm run openapi:emit`). Adding a route is adding a record and
 * the service call its handler makes.
 */
export type RouteRecord<B = unknown, Q = unknown> = {
  method: HttpMethod;
  /** The full path as express declares it: `/v1/verify/sessions/:id`. */
  path: string;
  guard: Guard;
  bucket: BucketName;
  /** The JSON body, validated before the handler runs, or a body the handler reads itself; a route without one reads no body. */
  body?: z.ZodType<B> | RawBody;
  /** The query string, validated before the handler runs. */
  query?: z.ZodType<Q>;
  /** false: the body's values are not held to the argument limits of src/validation/input-limits.ts (the chip's base64 data groups, which its decoder limits by bytes). */
  bodyLimits?: false;
  /** A path parameter's documented form (a pattern, or a shared parameter of openapi/base.yaml); a value outside it is the handler's 404. */
  params?: Record<string, z.ZodString | { component: string }>;
  responses: Record<number, RouteResponse>;
  /**
   * The error answers besides the guard's (401, 403, 429 follow from the guard and the bucket) and the body
   * reader's (400 and 413 on every record, 415 where it reads JSON: bodyReaderErrors in openapi-document.ts), by shared response name.
   */
  errors?: readonly ('BadRequest' | 'NotFound' | 'Conflict' | 'UnsupportedMediaType' | 'PayloadTooLarge' | 'Unprocessable')[];
  doc: { operationId: string; tags: readonly string[]; summary: string; description?: string };
  handler: (input: RouteInput<B, Q>) => Promise<RestResult>;
};

/** A record, its body and query types inferred from its schemas. */
export const defineRoute = <B = undefined, Q = undefined>(r: RouteRecord<B, Q>): RouteRecord => r as RouteRecord;

/**
 * The actor of a tenant-key route. The gate (http/policy-gate.middleware.ts) has checked the kind and the
 * scope from the record's guard before the handler runs; this only narrows the type.
 */
export function tenantKeyOf(ctx: AuthenticatedContext): TenantKeyActor {
  if (ctx.actor.kind !== 'tenant_key') throw new DomainError('insufficient_scope', 'This operation needs a tenant API key');
  return ctx.actor;
}

/** The policy row of a record: what the authorization table says of it. */
export const policyRowOf = (r: RouteRecord): RoutePolicy => ({ method: r.method, path: r.path, guard: r.guard });

/**
 * Every record onto `router` (mounted at /v1), each the same way: the path's owner where the credential
 * tells it, the body's parser (jsonBody for a record that reads JSON; for one that reads none, a JSON body
 * sent anyway is parsed all the same), the record's schemas, the input limits, then its handler. The gates
 * before it (http/policy-gate.middleware.ts, rest-adapter/me-gate.ts) have answered the credential and its
 * scope: a caller without the right has no body parsed.
 */
export function mountRoutes(router: Router, records: readonly RouteRecord[], services: V1Services): void {
  for (const r of records) {
    const path = r.path.replace(/^\/v1/, '');
    const raw = isRawBody(r.body) ? r.body : null;
    const reader = raw ? BODY_READERS[raw.read] : r.body ? jsonBody : parseJsonIfAny;
    router[r.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](
      path,
      (req, res, next) => {
        // Another's resource, when the credential alone tells (a client_secret's own session, a key's own tenant): 404 before the body is read.
        const refusal = refusalOfPathOwner(r.guard, req.auth.context?.actor, req.params);
        if (refusal) return answerDomainError(req, res, refusal);
        if (reader) return reader(req, res, next);
        next();
      },
      restRoute(async (req, ctx) => {
        const body = r.body && !raw ? parsed(r.body as z.ZodType, req.body, 'The request body') : undefined;
        const query = r.query ? parsed(r.query, req.query, 'The query string') : undefined;
        assertAcceptableRequest(req, r.bodyLimits !== false);
        return r.handler({ req, body, query, ctx, services });
      }),
    );
  }
}

/**
 * The limits every argument meets on both surfaces (src/validation/input-limits.ts), on every record alike:
 * the path's parameters, the body as sent (every field, those its schema drops too; a body is one argument,
 * as GraphQL's `input` is, so its fields sit one level deep) and the query string as sent, each named as the
 * request names it. `withBody` false: the chip's base64 data groups, which its decoder limits by bytes.
 */
function assertAcceptableRequest(req: Request, withBody: boolean): void {
  assertAcceptableInput(req.params);
  if (withBody && req.body !== undefined) {
    if (isFields(req.body)) assertAcceptableInput(req.body, 'the request body');
    else assertAcceptableInput({ 'the request body': req.body });
  }
  assertAcceptableInput({ ...req.query }, 'the query string');
}

/** A body that may be absent: no body (or an empty one) is `{}`; a body is JSON like everywhere else. */
const jsonBodyIfAny: RequestHandler = (req, res, next) => (req.headers['content-length'] === '0' || (!req.headers['content-type'] && !req.headers['transfer-encoding']) ? next() : jsonBody(req, res, next));

/** The parser before the handler of a raw body; a stream is left for the handler. */
const BODY_READERS: Record<RawBody['read'], RequestHandler | null> = { json: jsonBody, json_if_any: jsonBodyIfAny, stream: null };

const isFields = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` by `schema`, or the /v1 400 naming the first field at fault (`field: why`, as the services name theirs). */
function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  if (issue.code === 'unrecognized_keys') throw new DomainError('invalid_request', `${issue.keys.join(', ')}: unknown field${issue.keys.length > 1 ? 's' : ''}`);
  if (issue.path.length === 0) throw new DomainError('invalid_request', `${what} must be a JSON object`);
  throw new DomainError('invalid_request', `${issue.path.join('.')}: ${issue.message}`);
}
