import { routePolicyTable, type RoutePolicyTable } from '../src/auth/authorization-policy';
import { bucketForRequest } from '../src/rate-limit/buckets';
import { CHIP_ROUTES } from './chip.routes';
import { FLOW_ROUTES } from './flows.routes';
import { RETENTION_ROUTES } from './retention.routes';
import { policyRowOf, type RouteRecord } from './route-record';
import { SESSION_ROUTES } from './sessions.routes';
import { WEBHOOK_ROUTES } from './webhooks.routes';

/**
 * Every /v1 JSON route that is a record (rest-adapter/route-record.ts), in mount order. The /v1 routes
 * that are not records, and why: /v1/me and the data-rights routes (user tokens, their own gate in
 * rest-adapter/me.router.ts), bulk import (CSV and NDJSON bodies streamed past the JSON parser), the
 * hosted page's API (the page credential, before /v1's authentication), signed links and public keys
 * (no Authorization header), the OpenID Provider (its own requests), and the gateway's proxy to the
 * social upstream (any path below /v1/social, /v1/profiles, /v1/network). Their rows stay in
 * src/auth/authorization-policy.ts, which the start-up check below reads with the records'.
 */
export const V1_ROUTES: readonly RouteRecord[] = [...SESSION_ROUTES, ...CHIP_ROUTES, ...RETENTION_ROUTES, ...FLOW_ROUTES, ...WEBHOOK_ROUTES];

/** The authorization policy of every route the server serves: the records' rows and the others. */
export const ROUTE_POLICY_TABLE: RoutePolicyTable = routePolicyTable(V1_ROUTES.map(policyRowOf));
export const ROUTE_POLICY = ROUTE_POLICY_TABLE.v1;
export const ALL_ROUTE_POLICY = ROUTE_POLICY_TABLE.all;
export const policyOf = (method: string, path: string) => ROUTE_POLICY_TABLE.policyOf(method, path);
export const routePolicyOfRequest = (method: string, path: string) => ROUTE_POLICY_TABLE.ofRequest(method, path);

/** A path of the record with every parameter filled, as a request names it. */
export const concretePath = (path: string): string => path.replace(/:[A-Za-z]+/g, 'x');

/**
 * Records whose bucket is not the one the meter charges (src/rate-limit/buckets.ts matches a request by
 * the table's patterns before routing, so the records and the table must agree): the server refuses to start with one.
 */
export function bucketDisagreements(records: readonly RouteRecord[] = V1_ROUTES): string[] {
  return records.flatMap((r) => {
    const charged = bucketForRequest(r.method, concretePath(r.path));
    return charged === r.bucket ? [] : [`${r.method} ${r.path}: the record says ${r.bucket}, the bucket table ${charged}`];
  });
}
