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
    // Human decisions (docs/decisions.md D16), as the specification's table has it. The manual-review
    // override is not listed there, so it is `default` ("everything else"; docs/rate-limits.md).
    rules: [{ methods: ['POST'], patterns: ['/v1/verify/sessions/*/decisions'] }],
    description: 'POST /v1/verify/sessions/*/decisions',
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
 * Every GraphQL query and mutation root field, with the bucket of its REST twin (docs/rate-limits.md); a unit test
 * walks the schema and fails on a root field missing here, so none falls into `default` by
 * accident. Fields listed as `default` have no narrower twin: `reviewSession` (the manual-review
 * override, which the specification leaves in "everything else"), `cancelSession` (POST
 * .../sessions/{id}/cancel matches no narrower pattern; a `verify_create` unit would let
 * cancellations starve creations), key and webhook-endpoint management (POST /v1/verify/webhooks
 * is `default`), the operator's override, and the fields with no REST twin (CSCA certificates,
 * sanctions lists and screening). Every subscription root field is `verify_read`.
 */
export const GRAPHQL_FIELD_BUCKETS: Readonly<Record<string, BucketName>> = {
  // queries
  session: 'verify_read',
  sessions: 'verify_read',
  webhookEndpoints: 'default',
  webhookAttempts: 'default',
  auditLog: 'default',
  retention: 'default',
  retentionRuns: 'default',
  cscaCertificates: 'default',
  sanctionsLists: 'default',
  screenIdentity: 'default',
  viewer: 'default',
  dsrJobs: 'default',
  bulkImport: 'default',
  myProfile: 'default',
  profileChanges: 'default',
  reviewCases: 'default',
  flows: 'default',
  flow: 'default',
  // mutations
  updateRetention: 'default',
  updateFlow: 'default',
  createFlow: 'default',
  extendSessionRetention: 'default',
  createSession: 'verify_create',
  reviewSession: 'default', // REST twin: the manual-review override, `default` as the spec has it
  decideSession: 'verify_admin',
  cancelSession: 'default',
  createApiKey: 'default',
  revokeApiKey: 'default',
  createWebhookEndpoint: 'default',
  disableWebhookEndpoint: 'default',
  enableWebhookEndpoint: 'default',
  deleteWebhookEndpoint: 'default',
  rotateWebhookSecret: 'default',
  replayWebhookEvents: 'webhooks_replay',
  setRateLimitOverride: 'default',
  updateOidcRedirectUris: 'default',
  decideProfileChange: 'default',
  decideReviewCase: 'default',
  deleteMe: 'default',
  liftMyRestriction: 'default',
  objectToProcessing: 'default',
  purgeMyBiometrics: 'default',
  requestVerificationReview: 'default',
  restrictMe: 'default',
  updateMyProfile: 'default',
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

/**
 * The units an operation costs: one per selected root field (one entry per response key, see
 * rootFieldsOf) in that field's bucket, in table order; an operation of introspection only costs
 * one `default` unit.
 */
export function bucketsForGraphQL(operation: 'query' | 'mutation' | 'subscription', rootFields: readonly string[]): BucketName[] {
  const units = rootFields.map((f) => (operation === 'subscription' ? 'verify_read' : Object.hasOwn(GRAPHQL_FIELD_BUCKETS, f) ? GRAPHQL_FIELD_BUCKETS[f] : 'default'));
  if (units.length === 0) return ['default'];
  return units.sort((a, b) => BUCKET_NAMES.indexOf(a) - BUCKET_NAMES.indexOf(b));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
