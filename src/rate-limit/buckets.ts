/**
 * The one declarative table of rate-limit buckets (docs/api-behaviour.md, "Rate limits"). The
 * table of docs/rate-limits.md and the `x-rate-limit-buckets` extension of openapi.yaml are copies of it; a unit test
 * checks that they agree.
 */

export const WINDOW_SECONDS = 60;

/** Who a bucket counts: a tenant API key, or an OAuth client (falling back to the client IP). */
export type CountedPer = 'key' | 'client';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `*` in a pattern is one or more path segments; `/v1/verify/*` matches `/v1/verify/sessions/x`. */
export type PathRule = { methods: readonly Method[] | 'any' | 'non-GET'; patterns: readonly string[] };

export type BucketSpec = {
  limit: number;
  per: CountedPer;
  rules: readonly PathRule[];
  /** What docs/rate-limits.md and the OpenAPI document say about the bucket. */
  description: string;
};

const SOCIAL = ['/v1/social/*', '/v1/profiles/*', '/v1/network/*'];

/**
 * Matching is by order: the first bucket whose rule matches wins, so specific patterns come
 * before the catch-all ones (verify_create and verify_admin before verify_read, default last).
 */
export const BUCKETS = {
  social_read: { limit: 200, per: 'key', rules: [{ methods: ['GET'], patterns: SOCIAL }], description: 'GET /v1/social/*, GET /v1/profiles/*, GET /v1/network/*' },
  social_write: { limit: 60, per: 'key', rules: [{ methods: 'non-GET', patterns: SOCIAL }], description: 'non-GET on the social patterns' },
  auth_token: {
    limit: 300,
    per: 'client',
    rules: [{ methods: ['POST'], patterns: ['/v1/oidc/token', '/v1/oidc/par', '/v1/oauth2/token'] }],
    description: 'POST /v1/oidc/token, POST /v1/oidc/par, POST /v1/oauth2/token',
  },
  auth_userinfo: { limit: 600, per: 'client', rules: [{ methods: ['GET'], patterns: ['/v1/oidc/userinfo'] }], description: 'GET /v1/oidc/userinfo' },
  verify_create: { limit: 60, per: 'key', rules: [{ methods: ['POST'], patterns: ['/v1/verify/sessions'] }], description: 'POST /v1/verify/sessions' },
  verify_admin: {
    limit: 30,
    per: 'key',
    // The manual-review override is the decision endpoint this service serves today (docs/api-behaviour.md,
    // "Rate limits": the manual-review and decision mutations -> verify_admin).
    rules: [{ methods: ['POST'], patterns: ['/v1/verify/sessions/*/decisions', '/v1/verify/manual-review/*'] }],
    description: 'POST /v1/verify/sessions/*/decisions, POST /v1/verify/manual-review/*',
  },
  verify_read: { limit: 600, per: 'key', rules: [{ methods: ['GET'], patterns: ['/v1/verify/*'] }], description: 'GET /v1/verify/*' },
  webhooks_replay: { limit: 20, per: 'key', rules: [{ methods: ['POST'], patterns: ['/v1/developer/webhooks/*/replay'] }], description: 'POST /v1/developer/webhooks/*/replay' },
  bulk_import: { limit: 5, per: 'key', rules: [{ methods: ['POST'], patterns: ['/v1/admin/bulk-import'] }], description: 'POST /v1/admin/bulk-import (up to 10,000 records per call)' },
  default: { limit: 120, per: 'key', rules: [{ methods: 'any', patterns: ['/v1/*'] }], description: 'everything else under /v1, and GraphQL fields without a twin' },
} as const satisfies Record<string, BucketSpec>;

export type BucketName = keyof typeof BUCKETS;
export const BUCKET_NAMES = Object.keys(BUCKETS) as BucketName[];
export const isBucketName = (v: unknown): v is BucketName => typeof v === 'string' && Object.hasOwn(BUCKETS, v);

/**
 * GraphQL root fields and the bucket of their REST twin (docs/rate-limits.md). Fields not listed fall into
 * `default`. `cancelSession` is `default` because its REST twin (POST .../sessions/{id}/cancel)
 * matches no narrower pattern of the table; making it cost a `verify_create` unit would let
 * cancellations starve creations. Every subscription root field is charged to `verify_read`.
 */
export const GRAPHQL_FIELD_BUCKETS: Readonly<Record<string, BucketName>> = {
  session: 'verify_read',
  sessions: 'verify_read',
  createSession: 'verify_create',
  reviewSession: 'verify_admin',
  cancelSession: 'default',
  createApiKey: 'default',
  revokeApiKey: 'default',
  setRateLimitOverride: 'default',
};

const compiled = BUCKET_NAMES.flatMap((name) =>
  (BUCKETS[name].rules as readonly PathRule[]).map((rule) => ({
    name,
    methods: rule.methods,
    regexes: rule.patterns.map((p) => new RegExp(`^${p.split('*').map(escapeRegExp).join('[^?#]+')}/?$`)),
  })),
);

/** The bucket of a /v1 request; `path` is the full path without the query string. */
export function bucketForRequest(method: string, path: string): BucketName {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  for (const rule of compiled) {
    const methodOk = rule.methods === 'any' || (rule.methods === 'non-GET' ? m !== 'GET' : (rule.methods as readonly string[]).includes(m));
    if (methodOk && rule.regexes.some((r) => r.test(path))) return rule.name;
  }
  return 'default';
}

/** The buckets an operation touches, each once, in table order. */
export function bucketsForGraphQL(operation: 'query' | 'mutation' | 'subscription', rootFields: readonly string[]): BucketName[] {
  const set = new Set<BucketName>();
  for (const f of rootFields) set.add(operation === 'subscription' ? 'verify_read' : (GRAPHQL_FIELD_BUCKETS[f] ?? 'default'));
  if (set.size === 0) set.add('default');
  return BUCKET_NAMES.filter((b) => set.has(b));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
