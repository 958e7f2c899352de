import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { z } from 'zod';
import YAML from 'yaml';
import { USER_CAPABILITIES } from '../src/auth/user-token.policy';
import { isRawBody, type RouteRecord, type RouteResponse } from './route-record';

/**
 * What openapi/routes.yaml says of an operation that its record does not: the prose, and for a record whose
 * body its handler reads itself (route-record.ts RawBody) the authored request body, the query parameters
 * its service judges, and examples of the answers by status.
 */
export type RouteProse = Record<
  string,
  { description?: string; parameters?: Record<string, string>; requestBody?: unknown; queryParameters?: unknown[]; examples?: Record<string, unknown> }
>;

const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The headers of every /v1 answer the meter charged (docs/rate-limits.md). */
const ANSWER_HEADERS = {
  'request-id': ref('headers', 'RequestId'),
  'ratelimit-limit': ref('headers', 'RateLimitLimit'),
  'ratelimit-remaining': ref('headers', 'RateLimitRemaining'),
  'ratelimit-reset': ref('headers', 'RateLimitReset'),
};

const STATUS_OF_ERROR = { BadRequest: 400, NotFound: 404, Conflict: 409, PayloadTooLarge: 413, UnsupportedMediaType: 415, Unprocessable: 422 } as const;
type ErrorAnswer = keyof typeof STATUS_OF_ERROR;

/**
 * The refusals of the body reader mountRoutes puts before every record's handler (route-record.ts), so no
 * record has to name them: a record that reads JSON answers malformed JSON with 400, a body over 1 MiB with
 * 413 and another content type with 415; one that takes no body still parses a JSON body sent anyway (and
 * leaves any other type unread), so malformed or oversized JSON is its 400 or 413 all the same. A stream is
 * read by its handler, whose record names what it answers.
 */
function bodyReaderErrors(r: Pick<RouteRecord, 'body'>): ErrorAnswer[] {
  if (!r.body) return ['BadRequest', 'PayloadTooLarge'];
  if (isRawBody(r.body) && r.body.read === 'stream') return [];
  return ['BadRequest', 'PayloadTooLarge', 'UnsupportedMediaType'];
}

function schemaOf(s: NonNullable<RouteResponse['schema']>) {
  if ('jsonSchema' in s) return s.jsonSchema;
  if ('component' in s) return ref('schemas', s.component);
  if ('listOf' in s) return { type: 'object' as const, required: ['object', 'data'], properties: { object: { type: 'string' as const, enum: ['list'] }, data: { type: 'array' as const, items: ref('schemas', s.listOf) } } };
  return s;
}

/** An express path (`/v1/x/:tenantId`) as OpenAPI names it (`/v1/x/{tenant_id}`): parameters in snake_case, as the API names every field. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z]+)/g, (_m, name: string) => `{${snake(name)}}`);
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function operationOf(r: RouteRecord, prose: RouteProse[string] = {}): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject | { $ref: string }> = {};
  for (const [status, answer] of Object.entries(r.responses)) {
    const example = prose.examples?.[status];
    const content = answer.schema ? { [answer.mediaType ?? 'application/json']: { schema: schemaOf(answer.schema), ...(example === undefined ? {} : { example }) } } : undefined;
    responses[status] = { description: answer.description, headers: ANSWER_HEADERS, ...(content ? { content } : {}) };
  }
  const errors = new Map<number, string>([
    [401, 'Unauthorized'],
    [403, r.guard.kind === 'user_token' ? 'UserTokenForbidden' : 'Forbidden'],
    [429, 'TooManyRequests'],
  ]);
  for (const e of [...bodyReaderErrors(r), ...(r.errors ?? [])]) errors.set(STATUS_OF_ERROR[e], e);
  // A status the record describes itself (a 409 that says which conflict) keeps its own answer.
  for (const [status, name] of [...errors].sort(([a], [b]) => a - b)) responses[String(status)] ??= ref('responses', name);
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));

  const pathParams = [...r.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => {
    const declared = r.params?.[name];
    if (declared && 'component' in declared) return ref('parameters', declared.component);
    const description = prose.parameters?.[snake(name)];
    return { name: snake(name), in: 'path' as const, required: true, ...(description ? { description } : {}), schema: declared ? z.toJSONSchema(declared) : { type: 'string' as const } };
  });
  if (isRawBody(r.body) && r.body.read !== 'json_if_any' && !prose.requestBody) throw new Error(`${r.method} ${r.path}: its handler reads the body itself; openapi/routes.yaml authors its requestBody (${r.doc.operationId})`);
  const parameters = [...pathParams.map(stripSchemaDialect), ...(prose.queryParameters ?? [])];
  return {
    tags: [...r.doc.tags],
    operationId: r.doc.operationId,
    'x-rate-limit-bucket': r.bucket,
    summary: r.doc.summary,
    ...securityOf(r),
    ...(prose.description ? { description: prose.description } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(r.query ? { requestParams: { query: r.query as z.ZodObject } } : {}),
    ...(r.body && !isRawBody(r.body) ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
    ...(prose.requestBody ? { requestBody: prose.requestBody } : {}),
    responses: sorted,
  } as ZodOpenApiOperationObject;
}

/** The credentials a guard takes, as the document's security schemes name them; a tenant key is the document's default (`security: apiKey`). */
function securityOf(r: RouteRecord): { security?: Record<string, string[]>[] } {
  if (r.guard.kind === 'tenant_key_or_client_secret') return { security: [{ apiKey: [] }, { clientSecret: [] }] };
  if (r.guard.kind === 'client_secret') return { security: [{ clientSecret: [] }] };
  if (r.guard.kind === 'tenant_key') return {};
  if (r.guard.kind === 'user_token') return { security: [{ userToken: [USER_CAPABILITIES[r.guard.capability].scope] }] };
  throw new Error(`${r.method} ${r.path}: a route record's guard is a tenant key, a session's client_secret or a user token; ${r.guard.kind} routes are not records`);
}

/** zod's JSON Schema names its dialect; inside an OpenAPI 3.1 document the document's own applies. */
function stripSchemaDialect<T>(p: T): T {
  const schema = (p as { schema?: Record<string, unknown> }).schema;
  if (schema && '$schema' in schema) delete schema.$schema;
  return p;
}

/**
 * openapi.yaml: the authored parts (openapi/base.yaml: info, servers, security, tags, the bucket table,
 * webhooks, shared components, and the routes that are not records) with the records' operations
 * generated by zod-openapi from their zod schemas, and the prose of openapi/routes.yaml merged in.
 * The records' paths come first, in record order; the request schemas a record names (`.meta({ id })`)
 * become components.
 */
export function openApiDocument(records: readonly RouteRecord[], baseYaml: string, proseYaml: string): string {
  const prose = (YAML.parse(proseYaml) ?? {}) as RouteProse;
  const paths: ZodOpenApiPathsObject = {};
  for (const r of records) {
    const p = openApiPath(r.path);
    paths[p] = { ...paths[p], [r.method.toLowerCase()]: operationOf(r, prose[r.doc.operationId]) };
  }
  const generated = createDocument({ openapi: '3.1.0', info: { title: 'generated', version: '0' }, paths }, { reused: 'inline' });

  const doc = YAML.parseDocument(baseYaml);
  const authoredPaths = doc.get('paths') as YAML.YAMLMap;
  const merged = doc.createNode(generated.paths, { aliasDuplicateObjects: false }) as YAML.YAMLMap;
  for (const item of authoredPaths.items) {
    if (merged.has(item.key)) throw new Error(`openapi/base.yaml documents ${String(item.key)}, which a route record generates`);
    merged.items.push(item);
  }
  doc.set('paths', merged);
  const schemas = doc.getIn(['components', 'schemas']) as YAML.YAMLMap;
  for (const [name, schema] of Object.entries(generated.components?.schemas ?? {})) {
    if (schemas.has(name)) throw new Error(`openapi/base.yaml has components.schemas.${name}, which a record's zod schema generates`);
    schemas.set(name, doc.createNode(schema, { aliasDuplicateObjects: false }));
  }
  return `# Generated by \`npm run openapi:emit\` from the /v1 route records (rest-adapter/*.routes.ts), openapi/base.yaml\n# and openapi/routes.yaml. Do not edit: a test fails when it drifts.\n${doc.toString({ lineWidth: 0 })}`;
}
