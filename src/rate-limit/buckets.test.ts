import fs from 'node:fs';
import path from 'node:path';
import { buildSchema } from 'graphql';
import YAML from 'yaml';
import { BUCKET_NAMES, BUCKETS, bucketForRequest, bucketsForGraphQL, GRAPHQL_FIELD_BUCKETS } from './buckets';
import { rootFieldsOf } from '../../http/rate-limit.middleware';

const ROOT = path.resolve(__dirname, '..', '..');

describe('bucketForRequest', () => {
  it.each([
    ['GET', '/v1/social/feed', 'social_read'],
    ['GET', '/v1/network/a/b', 'social_read'],
    ['DELETE', '/v1/profiles/usr_1', 'social_write'],
    ['POST', '/v1/oidc/token', 'auth_token'],
    ['POST', '/v1/oauth2/token', 'auth_token'],
    ['GET', '/v1/oidc/userinfo', 'auth_userinfo'],
    ['POST', '/v1/verify/sessions', 'verify_create'],
    ['POST', '/v1/verify/sessions/', 'verify_create'],
    ['GET', '/v1/verify/sessions', 'verify_read'],
    ['HEAD', '/v1/verify/sessions/vses_1', 'verify_read'],
    ['POST', '/v1/verify/sessions/vses_1/decisions', 'verify_admin'],
    ['POST', '/v1/verify/manual-review/vses_1', 'default'],
    ['POST', '/v1/verify/sessions/vses_1/chip', 'default'],
    ['POST', '/v1/developer/webhooks/whk_1/replay', 'webhooks_replay'],
    ['POST', '/v1/admin/bulk-import', 'bulk_import'],
    ['GET', '/v1/admin/bulk-import', 'default'],
    ['GET', '/v1/me/data', 'default'],
  ])('puts %s %s in %s', (method, p, bucket) => {
    expect(bucketForRequest(method, p)).toBe(bucket);
  });
});

describe('GraphQL metering', () => {
  it('finds root fields through fragments and aliases, ignoring introspection', () => {
    const q = 'query Q { a: session(id: "1") { id } ...F ... on Query { __typename } } fragment F on Query { sessions { edges { cursor } } }';
    expect(rootFieldsOf(q, 'Q')).toEqual({ operation: 'query', fields: ['session', 'sessions'] });
  });

  it('picks the named operation, and cannot tell with several unnamed choices', () => {
    const doc = 'query A { session(id: "1") { id } } mutation B { createSession(input: {}) { id } }';
    expect(rootFieldsOf(doc, 'B')?.fields).toEqual(['createSession']);
    expect(rootFieldsOf(doc, undefined)).toBeNull();
    expect(rootFieldsOf('{ broken', undefined)).toBeNull();
  });

  it('counts aliases of one field as separate root fields', () => {
    expect(rootFieldsOf('mutation { a: createSession(input: {}) { id } b: createSession(input: {}) { id } createSession(input: {}) { id } }', undefined)?.fields).toEqual([
      'createSession',
      'createSession',
      'createSession',
    ]);
    expect(rootFieldsOf('{ ...F ...F } fragment F on Query { sessions { edges { cursor } } }', undefined)?.fields).toEqual(['sessions']);
  });

  it('charges one unit per root field in its bucket, subscriptions to verify_read, unknown fields to default', () => {
    expect(bucketsForGraphQL('query', ['session', 'sessions'])).toEqual(['verify_read', 'verify_read']);
    expect(bucketsForGraphQL('mutation', ['cancelSession', 'createSession', 'decideSession', 'reviewSession', 'createSession'])).toEqual(['verify_create', 'verify_create', 'verify_admin', 'default', 'default']);
    expect(bucketsForGraphQL('mutation', ['replayWebhookEvents'])).toEqual(['webhooks_replay']);
    expect(bucketsForGraphQL('query', ['constructor'])).toEqual(['default']);
    expect(bucketsForGraphQL('subscription', ['sessionStatusChanged'])).toEqual(['verify_read']);
    expect(bucketsForGraphQL('query', [])).toEqual(['default']);
  });
});

describe('every GraphQL root field has its bucket', () => {
  // The committed SDL is the schema (CI fails when it drifts from the code).
  const schema = buildSchema(fs.readFileSync(path.join(ROOT, 'schema', 'schema.graphql'), 'utf8'));
  const rootFields = [schema.getQueryType(), schema.getMutationType()].flatMap((t) => Object.keys(t?.getFields() ?? {}));

  it('lists each query and mutation root field in the table, and nothing else', () => {
    expect(rootFields.length).toBeGreaterThan(15);
    expect(Object.keys(GRAPHQL_FIELD_BUCKETS).sort()).toEqual([...rootFields].sort());
  });
});

describe('the documented tables', () => {
  it('docs/rate-limits.md shows exactly the bucket table of the code', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'docs', 'rate-limits.md'), 'utf8');
    const block = /<!-- rate-limit-buckets:start -->([\s\S]*?)<!-- rate-limit-buckets:end -->/.exec(readme)?.[1] ?? '';
    const rows = block
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split('|').map((c) => c.trim()));
    expect(rows.map((r) => [r[1].replace(/`/g, ''), r[2].replace(/\\\*/g, '*'), Number(r[3]), r[4]])).toEqual(
      BUCKET_NAMES.map((n) => [n, BUCKETS[n].description, BUCKETS[n].limit, BUCKETS[n].per]),
    );
  });

  it('openapi.yaml lists the same buckets and names the right bucket on every /v1 operation', () => {
    const doc = YAML.parse(fs.readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8')) as {
      'x-rate-limit-buckets': { name: string; limit_per_60s: number; counted_per: string; requests: string }[];
      paths: Record<string, Record<string, { 'x-rate-limit-bucket'?: string; responses: Record<string, unknown> }>>;
    };
    expect(doc['x-rate-limit-buckets'].map((b) => [b.name, b.requests, b.limit_per_60s, b.counted_per])).toEqual(
      BUCKET_NAMES.map((n) => [n, BUCKETS[n].description, BUCKETS[n].limit, BUCKETS[n].per]),
    );
    for (const [p, item] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/'))) {
      for (const [method, op] of Object.entries(item)) {
        expect([method, p, op['x-rate-limit-bucket']]).toEqual([method, p, bucketForRequest(method, p.replace(/\{[^}]+\}/g, 'x'))]);
        expect([method, p, op.responses['429']]).toEqual([method, p, { $ref: '#/components/responses/TooManyRequests' }]);
      }
    }
  });
});
