import { routePolicyTable, type RoutePolicyTable } from '../src/auth/authorization-policy';
import { bucketForRequest } from '../src/rate-limit/buckets';
import { BULK_IMPORT_ROUTES } from './bulk-import.routes';
import { CHIP_ROUTES } from './chip.routes';
import { DELEGATED_DSR_ROUTES } from './delegated-dsr.routes';
import { FLOW_ROUTES } from './flows.routes';
import { ME_ROUTES } from './me.routes';
import { RETENTION_ROUTES } from './retention.routes';
import { policyRowOf, type RouteRecord } from './route-record';
import { SESSION_ROUTES } from './sessions.routes';
import { WEBHOOK_ROUTES } from './webhooks.routes';

/**
 * Every /v1 route that reads a tenant key, a session's client_secret or a user token, as a record
 * (rest-adapter/route-record.ts), in mount order. The /v1 routes that are not records carry their own
 * credential or none, and their rows in src/auth/authorization-policy.ts say which: the hosted page's API
 * (the page credential, before /v1's authentication), signed links and public keys (no Authorization
 * header), the wallet's digital-ID requests (the request id), the OpenID Provider (its own requests), and the
 * gateway's proxy to the social upstream (any path below /v1/social, /v1/profiles, /v1/network). A route
 * that reads a key or a user token and is not a record has no policy row, and the server does not start.
 */
export const V1_ROUTES: readonly RouteRecord[] = [
  ...ME_ROUTES,
  ...SESSION_ROUTES,
  ...CHIP_ROUTES,
  ...RETENTION_ROUTES,
  ...FLOW_ROUTES,
  ...WEBHOOK_ROUTES,
  ...BULK_IMPORT_ROUTES,
  ...DELEGATED_DSR_ROUTES,
];

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
